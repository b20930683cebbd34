#include "daemon/coordinator/sweep_planner.h"

#include <random>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "daemon/common/spec_convert.h"
#include "daemon/coordinator/agent_fan_out.h"
#include "daemon/coordinator/agent_info_rules.h"
#include "daemon/coordinator/rank_memory.h"
#include "daemon/coordinator/topology_key.h"
#include "daemon/core/auto_max_bytes.h"
#include "daemon/core/backend_support.h"
#include "daemon/core/limits.h"
#include "daemon/core/moe_preset.h"
#include "daemon/core/name_rules.h"
#include "daemon/core/status_macros.h"
#include "daemon/core/status_reason.h"

namespace fabricpulse::coordinator {

SweepPlanner::SweepPlanner(const core::CoordinatorConfig* config,
                           Membership* membership, CommNaming* naming,
                           AgentClients* clients, core::Clock* clock,
                           const core::TimeoutBudget& timeouts)
    : config_(config),
      membership_(membership),
      naming_(naming),
      clients_(clients),
      clock_(clock),
      timeouts_(timeouts) {}

std::string SweepPlanner::NewSweepId() {
  // A random start, then one more per id: ids of the same second never
  // collide (up to 65,536 of them), and a restarted coordinator starts
  // elsewhere.
  const uint32_t suffix = (id_base_ + id_sequence_.fetch_add(1)) & 0xffff;
  return absl::StrCat(
      absl::FormatTime("%Y%m%d-%H%M%S", clock_->Now(), absl::UTCTimeZone()),
      "-", absl::Hex(suffix, absl::kZeroPad4));
}

absl::Status ValidateNodes(const v1::SweepRequest& request) {
  if (static_cast<size_t>(request.nodes_size()) > core::kMaxNodesPerSweep) {
    return absl::InvalidArgumentError(
        absl::StrCat("nodes: ", request.nodes_size(),
                     " listed; allowed: up to ", core::kMaxNodesPerSweep));
  }
  std::set<std::string> seen;
  for (int i = 0; i < request.nodes_size(); ++i) {
    const std::string& node = request.nodes(i);
    FP_RETURN_IF_ERROR(
        core::ValidateNodeName(absl::StrCat("nodes[", i, "]"), node));
    if (!seen.insert(node).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("nodes[", i, "]: node ", node, " is listed twice"));
    }
  }
  return absl::OkStatus();
}

std::vector<v1::RankPlacement> RankPlacements(
    const std::vector<v1::AgentInfo>& agents) {
  // AssignRanks's order (agents in order, each one's workers in order);
  // sweep_orchestrator_test holds the two to it.
  std::vector<v1::RankPlacement> ranks;
  int rank = 0;
  for (const v1::AgentInfo& agent : agents) {
    for (const v1::WorkerInfo& worker : agent.workers()) {
      v1::RankPlacement placement;
      placement.set_rank(rank++);
      placement.set_node(agent.node_name());
      placement.set_local_index(worker.local_index());
      placement.set_gpu(worker.gpu());
      placement.set_gpu_model(worker.gpu_model());
      placement.set_pci_bus_id(worker.pci_bus_id());
      ranks.push_back(std::move(placement));
    }
  }
  return ranks;
}

absl::Status SweepPlanner::Refresh(std::vector<v1::AgentInfo>& agents) {
  const auto answers =
      DescribeAll(*clients_, agents, timeouts_.AgentRpc(), clock_);
  for (size_t i = 0; i < agents.size(); ++i) {
    if (!answers[i].ok()) {
      return core::WithReason(
          absl::UnavailableError(absl::StrCat(
              "node ", agents[i].node_name(), " (", agents[i].address(),
              ") does not answer: ", answers[i].status().message())),
          core::StatusReason::kMemberUnavailable);
    }
    // An agent's answer is held to the bounds of its registration: it
    // cannot grow the sweep's ranks.
    absl::Status valid = ValidateAgentInfo(*answers[i]);
    if (valid.ok()) {
      valid = CheckWorkers(
          {answers[i]->workers().begin(), answers[i]->workers().end()},
          agents[i].workers_size());
    }
    if (valid.ok() && answers[i]->node_name() != agents[i].node_name()) {
      valid = absl::InvalidArgumentError(
          absl::StrCat("node_name: it answers as ",
                       core::QuotePrefix(answers[i]->node_name())));
    }
    if (!valid.ok()) {
      return core::WithReason(
          absl::UnavailableError(absl::StrCat(
              "node ", agents[i].node_name(), " (", agents[i].address(),
              ") describes itself out of bounds: ", valid.message())),
          core::StatusReason::kMemberUnavailable);
    }
    agents[i] = *answers[i];
    membership_->RefreshNics(agents[i].node_name(), agents[i].address(),
                             agents[i].nics());
    for (const v1::WorkerInfo& w : agents[i].workers()) {
      if (!w.ready()) {
        return core::WithReason(
            absl::UnavailableError(absl::StrCat(
                "node ", agents[i].node_name(), " worker ", w.local_index(),
                " is not ready (starting or restarting after ", w.restarts(),
                " restart(s)); retry shortly")),
            core::StatusReason::kMemberUnavailable);
      }
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<SweepPlan> SweepPlanner::Plan(
    const v1::SweepRequest& request, const std::string& coordinator_address) {
  if (absl::Status valid = ValidateNodes(request); !valid.ok()) return valid;
  core::SweepSpec spec = common::SpecFromProto(request.spec());
  std::vector<std::string> nodes(request.nodes().begin(),
                                 request.nodes().end());
  std::string plan_name = kAdhocPlan;
  if (!request.plan().empty()) {
    auto it = config_->plans.find(request.plan());
    if (it == config_->plans.end()) {
      std::vector<std::string> names;
      for (const auto& [name, plan] : config_->plans) names.push_back(name);
      return absl::InvalidArgumentError(absl::StrCat(
          "plan: unknown plan ", core::QuotePrefix(request.plan()),
          "; defined: ",
          names.empty() ? "none (start the coordinator with --config)"
                        : absl::StrJoin(names, ", ")));
    }
    plan_name = it->first;
    spec = it->second.spec;
    if (nodes.empty()) nodes = it->second.nodes;
  }
  auto agents = membership_->Select(nodes);
  if (!agents.ok()) return agents.status();
  // Registration's, which a description does not repeat: which agents
  // share a machine (--max-bytes auto).
  std::vector<std::string> boot_ids;
  for (const v1::AgentInfo& a : *agents) boot_ids.push_back(a.boot_id());
  const absl::Time describing = clock_->Now();
  absl::Status fresh = Refresh(*agents);
  if (!fresh.ok()) return fresh;
  SweepPlan plan;
  plan.describe_time = clock_->Now() - describing;
  plan.backend = agents->front().backend();
  for (const v1::AgentInfo& agent : *agents) {
    plan.nranks += agent.workers_size();
    if (agent.backend() != plan.backend) {
      return absl::FailedPreconditionError(absl::StrCat(
          "nodes: mixed backends (", agents->front().node_name(), " runs ",
          plan.backend, ", ", agent.node_name(), " runs ", agent.backend(),
          "); select nodes of one backend with --nodes"));
    }
  }
  if (core::HasMaxBytesAuto(spec)) {
    // What a client says was resolved is replaced by this sweep's own.
    const double fraction = spec.max_bytes_auto.fraction;
    spec.max_bytes_auto = core::MaxBytesAuto();
    spec.max_bytes_auto.fraction = fraction;
  }
  // The moe shape's rank-dependent parts (experts per rank, ranks per
  // node group), from the members in rank order.
  std::vector<int> ranks_per_node;
  for (const v1::AgentInfo& agent : *agents) {
    ranks_per_node.push_back(agent.workers_size());
  }
  core::ResolveMoeForRanks(spec.moe, plan.nranks, ranks_per_node);
  auto resolved = core::Validate(spec, plan.nranks);
  if (!resolved.ok()) return resolved.status();
  absl::Status supported =
      core::CheckBackendSupport(plan.backend, *resolved, spec);
  if (!supported.ok()) return supported;
  if (core::HasMaxBytesAuto(spec)) {
    // From the descriptions just taken, so every rank gets the same sizes.
    auto memory = RankMemories(*agents, boot_ids);
    if (!memory.ok()) return memory.status();
    absl::Status picked =
        core::ResolveMaxBytesAuto(spec, *resolved, plan.nranks, *memory,
                                  core::BackendBufferLimit(plan.backend));
    if (!picked.ok()) return picked;
  }
  auto steps = core::Expand(spec, plan.nranks);
  if (!steps.ok()) return steps.status();
  plan.steps = std::move(*steps);
  plan.sweep_id = NewSweepId();
  plan.plan_name = plan_name;
  plan.backend_version = agents->front().backend_version();
  for (const v1::AgentInfo& a : *agents) {
    for (const v1::WorkerInfo& w : a.workers()) {
      plan.rank_nodes.push_back(a.node_name());
      core::RankLocation location;
      location.node = a.node_name();
      location.gpu = w.gpu();
      if (w.gpu() >= 0 && !w.gpu_model().empty()) {
        plan.gpu_models.insert(w.gpu_model());
      }
      location.nvlink_peers.assign(w.nvlink_peers().begin(),
                                   w.nvlink_peers().end());
      plan.rank_locations.push_back(std::move(location));
    }
  }
  plan.ranks = RankPlacements(*agents);
  // From the fresh descriptions: the members' GPUs as they are now.
  plan.topology = TopologyKey(plan.backend, *agents);
  plan.membership_epoch = membership_->epoch();
  plan.comm_id = naming_->CommId(*agents, plan.membership_epoch, clock_->Now());
  plan.spec = common::SpecToProto(spec);
  plan.agents = std::move(*agents);
  plan.coordinator_address = coordinator_address;
  plan.lease = membership_->Lease();
  plan.op_timeout = spec.timeout;
  plan.iterations_per_step = core::OpsPerStepBound(spec);
  plan.allow_busy = request.allow_busy();
  plan.path = core::SweepPath(plan.rank_locations);
  plan.physical_limits = config_->physical_limits;
  return plan;
}

absl::StatusOr<std::vector<v1::AgentInfo>> SweepPlanner::PlanMembers(
    const std::string& plan) {
  auto it = config_->plans.find(plan);
  if (it == config_->plans.end()) {
    return absl::InvalidArgumentError(
        absl::StrCat("plan: unknown plan ", core::QuotePrefix(plan)));
  }
  return membership_->Select(it->second.nodes);
}

}  // namespace fabricpulse::coordinator
