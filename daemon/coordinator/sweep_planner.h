// Turns a sweep request into a plan: the plan's or the request's spec, the
// members (with fresh descriptions), ranks, the communicator's name and the
// expanded steps.
#pragma once

#include <atomic>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "daemon/coordinator/agent_client.h"
#include "daemon/coordinator/comm_naming.h"
#include "daemon/coordinator/membership.h"
#include "daemon/coordinator/sweep_runner.h"
#include "daemon/core/clock.h"
#include "daemon/core/coordinator_config.h"
#include "daemon/core/timeout_budget.h"
#include "fabricpulse/v1/coordinator.pb.h"

namespace fabricpulse::coordinator {

// Checks a request's node list: at most core::kMaxNodesPerSweep node names,
// each valid (core::ValidateNodeName) and listed once. Errors:
// INVALID_ARGUMENT naming the entry.
absl::Status ValidateNodes(const v1::SweepRequest& request);

// Where each rank of a sweep on `agents` runs, by rank, in the order
// SweepRunner::AssignRanks numbers them: node, local index, GPU index and
// the GPU's model and PCI bus id as the workers describe them (empty when
// unknown; -1 and empty for CPU ranks).
std::vector<v1::RankPlacement> RankPlacements(
    const std::vector<v1::AgentInfo>& agents);

// Thread-safe (as its parts are). Everything it points to outlives it.
class SweepPlanner {
 public:
  SweepPlanner(const core::CoordinatorConfig* config, Membership* membership,
               CommNaming* naming, AgentClients* clients, core::Clock* clock,
               const core::TimeoutBudget& timeouts);

  // Validates the request and builds the plan; asks every member to
  // describe itself (in parallel, bounded by the budget's agent call) so
  // that the ranks match the workers that run now. Workers reach the
  // rendezvous store at `coordinator_address`. Errors: INVALID_ARGUMENT bad
  // spec (core::Validate), bad node list (ValidateNodes), unknown plan or
  // node, --max-bytes auto that no size fits (core::ResolveMaxBytesAuto,
  // which resolves it here from the fresh descriptions); FAILED_PRECONDITION
  // --max-bytes auto and a rank without a free-memory figure
  // (RankMemories); UNAVAILABLE no live agent, a named node is lost, does not
  // answer, describes itself out of bounds (ValidateAgentInfo, more workers
  // than it heartbeats with, another name) or has a worker that is not ready;
  // FAILED_PRECONDITION mixed backends.
  absl::StatusOr<SweepPlan> Plan(const v1::SweepRequest& request,
                                 const std::string& coordinator_address);

  // The agents a sweep of plan `plan` would run on (the plan's nodes, or
  // every live agent), as their last heartbeats describe them: no call to
  // an agent. Errors: INVALID_ARGUMENT unknown plan or node; UNAVAILABLE a
  // named node is lost, or no live agent.
  absl::StatusOr<std::vector<v1::AgentInfo>> PlanMembers(
      const std::string& plan);

 private:
  // Replaces each description by the agent's own answer. Errors:
  // UNAVAILABLE naming the first node that does not answer or has a worker
  // that is not ready.
  absl::Status Refresh(std::vector<v1::AgentInfo>& agents);
  std::string NewSweepId();

  const core::CoordinatorConfig* const config_;
  Membership* const membership_;
  CommNaming* const naming_;
  AgentClients* const clients_;
  core::Clock* const clock_;
  const core::TimeoutBudget timeouts_;
  const uint32_t id_base_ = std::random_device()();
  std::atomic<uint32_t> id_sequence_{0};
};

}  // namespace fabricpulse::coordinator
