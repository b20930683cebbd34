// Runs sweeps for the RPC adapter and the scheduler alike: owns the
// membership, the communicators' names, the rendezvous store and the
// running sweeps; plans each sweep, reserves its members, opens its
// rendezvous scope, runs it and sends each event one way, to the recorder
// (history, metrics, regressions, straggler) and then to the caller's sink.
// It also aborts and diagnoses sweeps.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "daemon/coordinator/agent_client.h"
#include "daemon/coordinator/comm_naming.h"
#include "daemon/coordinator/coordinator_metrics.h"
#include "daemon/coordinator/isolation_trigger.h"
#include "daemon/coordinator/membership.h"
#include "daemon/coordinator/rendezvous_store.h"
#include "daemon/coordinator/store/history_store.h"
#include "daemon/coordinator/sweep_planner.h"
#include "daemon/coordinator/sweep_runner.h"
#include "daemon/core/clock.h"
#include "daemon/core/coordinator_config.h"
#include "daemon/core/timeout_budget.h"
#include "fabricpulse/v1/coordinator.pb.h"

namespace fabricpulse::coordinator {

// Thread-safe.
class SweepOrchestrator {
 public:
  // Everything it points to outlives it.
  SweepOrchestrator(core::CoordinatorConfig config, HistoryStore* history,
                    CoordinatorMetrics* metrics, AgentClients* clients,
                    core::Clock* clock,
                    const core::TimeoutBudget& timeouts = core::kTimeouts);

  Membership& membership() { return membership_; }
  // Each sweep's rendezvous scope, "<comm_id>/<sweep_id>/", is open from
  // just before its agents are asked to run it until Execute has its
  // outcome (the agents' streams have ended or were cut), for the sweep's
  // member nodes, with the budget of its rank count.
  RendezvousStore& rendezvous() { return rendezvous_; }
  const core::TimeoutBudget& timeouts() const { return timeouts_; }

  // Runs a sweep to its end: plans it, reserves the members, records it,
  // streams its events to `sink` (the last is `finished`, once the sweep
  // was planned and reserved). `trigger` is "cli" or "schedule:<name>".
  // A sink that returns false ends the sweep (CANCELLED). Errors before
  // the first event: INVALID_ARGUMENT, UNAVAILABLE, FAILED_PRECONDITION
  // (see SweepPlanner::Plan), RESOURCE_EXHAUSTED a member is busy with
  // another sweep, or (GpusBusyError, unless request.allow_busy) a member
  // GPU is busy with a foreign compute process, as the members describe
  // themselves now (nothing is recorded then), INTERNAL the history refused
  // the sweep; after it: the sweep's outcome (DEADLINE_EXCEEDED,
  // UNAVAILABLE, ABORTED, CANCELLED, PreemptedError, a worker's error), with
  // the culprit named first when the diagnosis finds one (never for a
  // preempted sweep: it is not diagnosed).
  absl::Status Execute(const v1::SweepRequest& request,
                       const std::string& trigger, const SweepSink& sink);

  // Aborts the running sweep `sweep_id` (every running sweep when empty);
  // returns the ids aborted. Errors: NOT_FOUND no such running sweep.
  absl::StatusOr<std::vector<std::string>> Abort(const std::string& sweep_id);
  // Aborts every running sweep (shutdown): each ends ABORTED "the
  // coordinator is shutting down". Idempotent.
  void AbortAll();
  // Ends the running sweep `sweep_id` as CANCELLED (its client went away);
  // nothing when it is not running.
  void Cancel(const std::string& sweep_id);

  // Diagnoses `sweep_id` (empty: the running sweep, else the newest failed
  // one) with core::DiagnoseSweep: a running sweep from its members' flight
  // recorders now, judged against TimeoutBudget::PeerWait and StepStall of
  // its op timeout (running, or stalled with culprits); a failed one from
  // its stored diagnosis, else from its members' rings as of when it
  // ended; an aborted or succeeded one from the history alone.
  // Errors: NOT_FOUND no such sweep, or none to diagnose; UNAVAILABLE a
  // failed sweep without a stored diagnosis has a lost member.
  absl::StatusOr<v1::DiagnoseResponse> Diagnose(const std::string& sweep_id);

  // See SweepPlanner::PlanMembers.
  absl::StatusOr<std::vector<v1::AgentInfo>> PlanMembers(
      const std::string& plan);

  // Called on the sweep's thread as each sweep Execute ran ends, after its
  // `finished` event went to the sink and its members were released (the
  // AutoIsolator's OnSweepEnd). Set it before the first sweep.
  void SetSweepEndHook(std::function<void(const SweepEnd&)> hook);

  // Address workers use to reach the rendezvous store.
  void SetAdvertisedAddress(const std::string& address);
  // Refreshes the agents-by-state gauge (membership marks lost agents
  // lazily: call it periodically so that a lost agent shows without a
  // client asking).
  void UpdateAgentMetrics();
  // A node registered: its per-node counters start at 0.
  void NodeRegistered(const std::string& node);
  // The agents as membership lists them, each with the links it has below
  // its peers (AgentInfo.link_findings, link_health.h); sets
  // fabricpulse_node_links_degraded of every listed node.
  std::vector<v1::AgentInfo> AgentsWithLinkHealth();
  uint64_t sweeps_started();

 private:
  const core::CoordinatorConfig config_;
  const core::TimeoutBudget timeouts_;
  HistoryStore* const history_;
  CoordinatorMetrics* const metrics_;
  AgentClients* const clients_;
  core::Clock* const clock_;
  Membership membership_;
  RendezvousStore rendezvous_;
  CommNaming naming_;
  SweepPlanner planner_;
  absl::Mutex mu_;
  std::map<std::string, std::shared_ptr<SweepRunner>> running_
      ABSL_GUARDED_BY(mu_);
  uint64_t sweeps_started_ ABSL_GUARDED_BY(mu_) = 0;
  std::string advertised_address_ ABSL_GUARDED_BY(mu_);
  std::function<void(const SweepEnd&)> end_hook_ ABSL_GUARDED_BY(mu_);
};

}  // namespace fabricpulse::coordinator
