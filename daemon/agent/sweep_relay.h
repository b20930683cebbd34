// Runs one sweep on this node's workers for the coordinator: starts each
// listed rank's stream, passes every event on unchanged, and decides on the
// agent's clock when to abort the local ranks (one failed, the coordinator
// cancelled or asked, the sweep lease ran out, a foreign process appeared
// on one of the sweep's GPUs) and when a worker that has not returned after
// the abort is killed.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "daemon/agent/coordinator_contact.h"
#include "daemon/agent/worker_client.h"
#include "daemon/core/clock.h"
#include "daemon/core/timeout_budget.h"
#include "fabricpulse/v1/agent.pb.h"

namespace fabricpulse::agent {

// Whether, and why, the coordinator wants the sweep ended (polled by the
// relay).
enum class StopCause {
  kNone,
  // Cancelled, or aborted after a failure.
  kFailure,
  // Aborted on an operator's request (daemon/common/abort_cause.h).
  kRequest,
};

// One use: Run() once, from one thread.
class SweepRelay {
 public:
  // Everything it points to outlives it. `node_name` names this node in
  // errors.
  SweepRelay(const v1::AgentSweepRequest& request, std::string node_name,
             LocalWorkers* workers, CoordinatorContact* contact,
             core::Clock* clock,
             const core::TimeoutBudget& timeouts = core::kTimeouts);

  // Passes each event to `sink` (on Run's thread; false: the receiver is
  // gone). `stop` is polled every 100 ms: not kNone when the coordinator
  // cancelled the call or asked to abort. Returns when every rank's stream
  // has ended. A worker killed because it did not return within the kill
  // grace of the abort is killed as KillCause::kAbortRequested when the
  // abort was the coordinator's kRequest (and no local failure came
  // first), else as kFault. While a rank's stream runs its worker is
  // pinged every 500 ms (WorkerLiveness). Errors: UNAVAILABLE a listed
  // worker is not ready (nothing started), the sweep lease ran out, or a
  // worker died ("rank R on node N: worker unreachable or died: ...");
  // DEADLINE_EXCEEDED a worker answered no ping for the spec's op timeout
  // plus the worker call bound (stopped or wedged: it is aborted, then
  // killed after the grace); RESOURCE_EXHAUSTED the sweep yielded
  // (YieldWhen); CANCELLED when stopped; else the first rank's error.
  absl::Status Run(const std::function<bool(const v1::RankEvent&)>& sink,
                   const std::function<StopCause()>& stop);

  // Before Run: `check` is polled with `stop` (every 100 ms) until the
  // sweep stops. When it answers (a foreign compute process on one of the
  // sweep's GPUs), the relay yields: it sends the answer to the sink as a
  // `preempted` event first (so that the coordinator learns the cause
  // before the peers see this node's ranks go), then aborts its ranks as on
  // an operator's request (a worker killed after the kill grace is no fault)
  // and forwards nothing more.
  void YieldWhen(std::function<std::optional<v1::PreemptedEvent>()> check) {
    yield_check_ = std::move(check);
  }

 private:
  struct Target {
    int rank;
    int local_index;
    std::shared_ptr<WorkerClient> client;
  };
  // Shared with the streams' callbacks.
  struct Inbox {
    absl::Mutex mu;
    std::vector<v1::RankEvent> events ABSL_GUARDED_BY(mu);
    int running ABSL_GUARDED_BY(mu) = 0;
    std::vector<bool> done ABSL_GUARDED_BY(mu);
    absl::Status first_error ABSL_GUARDED_BY(mu);
  };
  void StartStreams();
  // Kills every worker whose stream has not ended.
  void KillStuck(KillCause cause);

  const v1::AgentSweepRequest& request_;
  const std::string node_name_;
  LocalWorkers* const workers_;
  CoordinatorContact* const contact_;
  core::Clock* const clock_;
  const core::TimeoutBudget timeouts_;
  std::vector<Target> targets_;
  std::vector<std::unique_ptr<WorkerSweepStream>> streams_;
  std::function<std::optional<v1::PreemptedEvent>()> yield_check_;
  std::optional<v1::PreemptedEvent> preempted_;  // set once it yielded
  const std::shared_ptr<Inbox> inbox_ = std::make_shared<Inbox>();
};

}  // namespace fabricpulse::agent
