// The coordinator's own isolations: after a sweep of a plan with
// isolate_on ends with a regressed step or a fault on >= 2 nodes
// (isolation_trigger.h), it runs core::Isolate in the background on the
// sweep's nodes, each measurement a sweep of one op and size (the step that
// regressed or failed) through the same launch path as the RunSweep RPC,
// with the trigger "isolation:<parent sweep id>": such sweeps are not
// judged, never start an isolation and never count towards a baseline
// (kIsolationTriggerPrefix). The result is kept in the history with the
// parent (HistoryStore::SaveIsolation) and counted in
// fabricpulse_isolations_total{plan, verdict}.
//
// Bounds: at most one isolation at a time per coordinator (a sweep that
// would start another while one runs is recorded "skipped"); its rounds are
// core::Isolate's (O(log n) sets and one pairwise check of at most
// core::kMaxPairwiseCheckNodes nodes); the history keeps at most
// kMaxStoredIsolations.
//
// It gives way: a round refused because a member is busy with another sweep
// or a member GPU is busy (or preempted by a foreign process) waits, retrying
// every `busy_retry`, for at most `busy_wait` in all, then the isolation
// gives up ("gave_up", with the refusal as its summary). It holds members
// only while one of its sweeps runs, never the scheduler's thread.
#pragma once

#include <functional>
#include <string>
#include <thread>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "daemon/coordinator/coordinator_metrics.h"
#include "daemon/coordinator/isolation_trigger.h"
#include "daemon/coordinator/store/history_store.h"
#include "daemon/coordinator/sweep_runner.h"
#include "daemon/core/clock.h"
#include "daemon/core/coordinator_config.h"
#include "daemon/core/isolation.h"
#include "fabricpulse/v1/coordinator.pb.h"

namespace fabricpulse::coordinator {

// Runs one sweep to its end as SweepOrchestrator::Execute does.
using SweepLauncher = std::function<absl::Status(
    const v1::SweepRequest&, const std::string& trigger, const SweepSink&)>;

struct AutoIsolatorOptions {
  // How long, in all, an isolation waits for busy members or GPUs.
  absl::Duration busy_wait = absl::Minutes(10);
  absl::Duration busy_retry = absl::Seconds(5);
};

// The stored form of a report.
std::vector<IsolationRoundRecord> RoundRecords(
    const core::IsolationReport& report);

// Thread-safe. Everything it points to outlives it.
class AutoIsolator {
 public:
  AutoIsolator(const core::CoordinatorConfig* config, SweepLauncher launch,
               HistoryStore* history, CoordinatorMetrics* metrics,
               core::Clock* clock, AutoIsolatorOptions options = {});
  ~AutoIsolator();  // Stop()

  // Called as each sweep ends; starts an isolation when IsolationStartFor
  // says so (the plan's isolate_on). Returns at once.
  void OnSweepEnd(const SweepEnd& end);
  // No new isolation starts; a running one stops waiting and ends after
  // its current sweep (which the orchestrator's AbortAll ends).
  void RequestStop();
  void Stop();  // RequestStop, then waits for the running isolation
  // Waits up to `timeout` until no isolation runs; whether none does.
  bool WaitIdle(absl::Duration timeout);

 private:
  struct Job {
    SweepEnd end;
    IsolationStart start;
    core::SweepSpec spec;  // the parent plan's, for the rounds' settings
  };
  void Run(const Job& job);
  // One sweep of `spec` on `nodes`, waiting while busy (see above). Its id
  // and results; errors: the refusal after busy_wait (RESOURCE_EXHAUSTED),
  // CANCELLED when stopping, ABORTED when the sweep was aborted (no
  // evidence: the isolation ends "interrupted"), or another refusal before
  // it started.
  struct Collected {
    std::string sweep_id;
    std::vector<v1::StepResult> results;
    absl::Status status;
  };
  absl::StatusOr<Collected> Measure(const core::SweepSpec& spec,
                                    const std::vector<std::string>& nodes,
                                    const std::string& trigger);
  void Save(const IsolationRecord& record);

  const core::CoordinatorConfig* const config_;
  const SweepLauncher launch_;
  HistoryStore* const history_;
  CoordinatorMetrics* const metrics_;
  core::Clock* const clock_;
  const AutoIsolatorOptions options_;
  absl::Mutex mu_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  bool busy_ ABSL_GUARDED_BY(mu_) = false;
  std::string running_parent_ ABSL_GUARDED_BY(mu_);
  std::thread thread_ ABSL_GUARDED_BY(mu_);
};

}  // namespace fabricpulse::coordinator
