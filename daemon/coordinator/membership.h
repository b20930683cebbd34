// Which agents exist, which are alive, which are busy, and the membership
// epoch that changes whenever an agent joins, re-joins or is lost.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "daemon/core/clock.h"
#include "daemon/core/timeout_budget.h"
#include "fabricpulse/v1/types.pb.h"

namespace fabricpulse::coordinator {

// Thread-safe.
class Membership {
 public:
  // An agent whose last heartbeat is older than the budget's lease for the
  // fleet's size (TimeoutBudget::Lease), on `clock`, is lost. `clock`
  // outlives the membership.
  explicit Membership(const core::TimeoutBudget& timeouts,
                      core::Clock* clock = core::RealClock::Get())
      : timeouts_(timeouts), clock_(clock) {}

  struct Registered {
    std::string agent_id;
    uint64_t epoch = 0;
  };
  // Adds the agent, replacing any entry with the same node name. Errors:
  // INVALID_ARGUMENT empty node name or address.
  absl::StatusOr<Registered> Register(const v1::AgentInfo& info);
  struct HeartbeatAnswer {
    uint64_t epoch = 0;
    std::string sweep_id;  // the sweep the agent is reserved for, or ""
  };
  // Errors: NOT_FOUND unknown id (the agent should register again).
  absl::StatusOr<HeartbeatAnswer> Heartbeat(
      const std::string& agent_id, const std::vector<v1::WorkerInfo>& workers);
  // The node registered under `agent_id`. Errors: NOT_FOUND unknown id.
  absl::StatusOr<std::string> NodeOf(const std::string& agent_id);
  // Every agent, sorted by node name, with state and heartbeat age.
  std::vector<v1::AgentInfo> List();
  uint64_t epoch();
  // Registered agents, lost ones included.
  int size();
  // The heartbeat interval and lease for the fleet as it is now.
  absl::Duration HeartbeatInterval();
  absl::Duration Lease();
  // Agents by state.
  struct Counts {
    int alive = 0;
    int lost = 0;
  };
  Counts CountByState();

  // The agents of a sweep: `nodes` (all live agents when empty), sorted by
  // node name. Errors: INVALID_ARGUMENT unknown node; UNAVAILABLE a named
  // node is lost, or no live agent.
  absl::StatusOr<std::vector<v1::AgentInfo>> Select(
      const std::vector<std::string>& nodes);
  // Marks the nodes busy for `sweep_id`. Errors: RESOURCE_EXHAUSTED one is
  // already busy (names it and its sweep).
  absl::Status Reserve(const std::vector<std::string>& nodes,
                       const std::string& sweep_id);
  void Release(const std::vector<std::string>& nodes);

 private:
  struct Record {
    std::string agent_id;
    v1::AgentInfo info;
    absl::Time last_heartbeat;
    bool lost = false;
    std::string busy_with;
  };
  // Marks agents whose lease ran out as lost.
  void UpdateLeases() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const core::TimeoutBudget timeouts_;
  core::Clock* const clock_;
  absl::Mutex mu_;
  std::map<std::string, Record> by_node_ ABSL_GUARDED_BY(mu_);
  // agent id -> node name, so that a heartbeat finds its agent at once.
  std::map<std::string, std::string> node_by_id_ ABSL_GUARDED_BY(mu_);
  uint64_t epoch_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t next_id_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace fabricpulse::coordinator
