// Runs one sweep across its agents: rank assignment, fan-out, merging of
// per-rank timings into per-step results, abort on the first failure.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "daemon/coordinator/agent_client.h"
#include "daemon/coordinator/pair_round_hold.h"
#include "daemon/core/clock.h"
#include "daemon/core/path_class.h"
#include "daemon/core/physical_limits.h"
#include "daemon/core/step_merge.h"
#include "daemon/core/sweep_spec.h"
#include "daemon/core/timeout_budget.h"
#include "fabricpulse/v1/agent.pb.h"
#include "fabricpulse/v1/coordinator.pb.h"

namespace fabricpulse::coordinator {

// The plan name of sweeps without a plan.
inline constexpr char kAdhocPlan[] = "adhoc";

struct SweepPlan {
  std::string sweep_id;
  std::string plan_name;  // "adhoc" for sweeps without a plan
  // Backend, then node x ranks, sorted: baselines compare like with like.
  std::string topology;
  std::string backend_version;
  // Node of each global rank, for naming the slowest rank's node.
  std::vector<std::string> rank_nodes;
  // Where each global rank runs (node, GPU, NVLink peers), for the
  // pairwise matrix's path classes.
  std::vector<core::RankLocation> rank_locations;
  // Where each global rank runs, by rank (RankPlacements).
  std::vector<v1::RankPlacement> ranks;
  std::string comm_id;
  uint64_t membership_epoch = 0;  // the epoch the plan was made at
  // How long agents keep running the sweep without an answered heartbeat.
  absl::Duration lease = absl::Seconds(5);
  v1::SweepSpec spec;                 // as sent to the workers
  std::vector<core::Step> steps;      // expanded for nranks
  std::vector<v1::AgentInfo> agents;  // sorted by node name, fresh workers
  int nranks = 0;
  std::string backend;
  // Where workers reach the rendezvous store.
  std::string coordinator_address;
  absl::Duration op_timeout;
  int iterations_per_step = 1;  // core::OpsPerStepBound
  // SweepRequest.allow_busy: run on busy GPUs, and never yield.
  bool allow_busy = false;
  // The sweep's slowest path and the busbw no path can carry: a merged step
  // above it fails the sweep (a worker or agent reporting false figures).
  core::PathClass path = core::PathClass::kNetwork;
  core::PhysicalLimits physical_limits;
  // The members' GPU models (CPU ranks add none): their ceilings apply.
  std::set<std::string> gpu_models;
  // How long planning waited for the members' Describe answers (part of
  // the plan phase in the coordinator's debug timing line).
  absl::Duration describe_time;
};

// Receives each event; returns false when the receiver is gone.
using SweepSink = std::function<bool(const v1::SweepEvent&)>;

// One use: Run() once; Abort() from any thread.
class SweepRunner {
 public:
  // `clients` and `clock` outlive the runner. Its waits and deadlines come
  // from `timeouts`.
  SweepRunner(SweepPlan plan, AgentClients* clients, core::Clock* clock,
              const core::TimeoutBudget& timeouts = core::kTimeouts);

  // Streams started, comm_ready, each result in step order. Returns the
  // sweep's outcome (the caller sends `finished`). Errors: the first
  // rank's error (DEADLINE_EXCEEDED, UNAVAILABLE, ...), ABORTED when
  // aborted, CANCELLED when the sink went away, PreemptedError
  // (RESOURCE_EXHAUSTED, busy_gpus.h) when an agent sent `preempted` (it
  // yielded to a foreign GPU process; that wins over a peer's error caused
  // by the yield); every member is then told to abort the communicator (as
  // requested, not as a failure, for an abort, a cancel or a yield).
  //
  // Events are bounded: each rank reports its communicator once and each
  // step once, in step order, so a rank sends at most steps + 1 events and
  // an agent its ranks times that. An event beyond that, out of order, for
  // a step that does not exist or for a rank the agent was not given fails
  // the sweep at once (RESOURCE_EXHAUSTED for a repeated report,
  // INVALID_ARGUMENT for the others), naming the agent; it is dropped on
  // arrival, never queued.
  absl::Status Run(const SweepSink& sink);
  // Ends the sweep with ABORTED (an operator's abort, or `reason`) or
  // CANCELLED (the client went away). Any thread; idempotent; the first one
  // counts.
  void Abort(absl::string_view reason = "sweep aborted by request");
  void Cancel();
  const std::vector<v1::AgentInfo>& agents() const { return plan_.agents; }
  const SweepPlan& plan() const { return plan_; }
  // Called (on Run's thread) when the sweep fails for a reason other than
  // an abort or a cancellation, before the members are told to abort: the
  // moment to read their flight recorders.
  void OnFailure(std::function<void(const absl::Status&)> hook) {
    on_failure_ = std::move(hook);
  }

  // Assigns ranks: agents in order, each agent's workers in local order.
  static std::vector<std::vector<v1::RankAssignment>> AssignRanks(
      const std::vector<v1::AgentInfo>& agents);

 private:
  struct AgentEvent {
    int agent = 0;
    bool done = false;
    absl::Status status;
    v1::RankEvent event;
  };
  // What the agents' streams report, shared with their callbacks (which may
  // outlive Run when a stream ignores its cancellation for a while).
  struct Inbox {
    absl::Mutex mu;
    std::vector<AgentEvent> queue ABSL_GUARDED_BY(mu);
    // Why the sweep must end now (ABORTED, CANCELLED); OK while it runs.
    absl::Status stop ABSL_GUARDED_BY(mu);
    // The bounds on events (see Run), set before the streams start.
    int steps = 0;
    std::vector<int> agent_of_rank;                  // by global rank
    std::vector<int> next_step ABSL_GUARDED_BY(mu);  // by global rank
    std::vector<bool> comm_ready ABSL_GUARDED_BY(mu);
    // The first event out of bounds; OK while there is none.
    absl::Status rogue ABSL_GUARDED_BY(mu);
    // Admits one of `agent`'s events (named `node`): OK, or why it breaks
    // the bounds (also kept in `rogue`).
    absl::Status Admit(int agent, const std::string& node,
                       const v1::RankEvent& event)
        ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  };
  // What Run has seen so far.
  struct Progress {
    Progress(int nranks, std::vector<core::RankLocation> locations)
        : pair_hold(nranks, std::move(locations)) {}
    std::vector<std::vector<core::RankStepTiming>> timings;  // by step
    // Pairwise rounds wait here until their size's last round is in.
    PairRoundHold pair_hold;
    size_t next_emit = 0;  // the next step to merge and send
    int ready = 0;         // ranks whose communicator is ready
    int agents_done = 0;   // streams ended
    bool all_reused = true;
    double max_init = 0;
    absl::Status outcome;  // the first failure
  };
  v1::SweepEvent StartedEvent() const;
  // Starts every agent's stream; their events go to the inbox.
  void StartStreams();
  // Takes a batch of the agents' events into `p`, sending comm_ready and
  // each step merged as soon as every rank has reported it.
  void Apply(const std::vector<AgentEvent>& batch, const SweepSink& sink,
             Progress& p);
  // Tells every member to abort (in parallel, bounded); whether each
  // answered.
  std::vector<bool> AbortAgents(common::AbortCause cause);
  // After a failure: waits, bounded by the drain timeout, for the agents'
  // streams to end (their workers are then free), taking their ends.
  void Drain(const std::vector<bool>& answered, Progress& p);
  // An agent's stream ended: its error becomes the sweep's outcome when it
  // is the first, or when it says that agent's sweep lease ended (the root
  // cause of its peers' errors).
  void TakeAgentEnd(const AgentEvent& item, Progress& p);

  const SweepPlan plan_;
  AgentClients* const clients_;
  core::Clock* const clock_;
  const core::TimeoutBudget timeouts_;
  std::function<void(const absl::Status&)> on_failure_;
  const std::shared_ptr<Inbox> inbox_ = std::make_shared<Inbox>();
  std::vector<std::unique_ptr<AgentSweepStream>> streams_;
};

}  // namespace fabricpulse::coordinator
