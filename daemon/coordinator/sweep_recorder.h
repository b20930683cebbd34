// Subscribes to one sweep's events and keeps what outlasts it: the history
// rows, the Prometheus series, each result's baseline and regression, the
// straggler signal and the stored diagnosis.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "daemon/coordinator/baseline_change.h"
#include "daemon/coordinator/coordinator_metrics.h"
#include "daemon/coordinator/isolation_trigger.h"
#include "daemon/coordinator/store/history_store.h"
#include "daemon/coordinator/sweep_runner.h"
#include "daemon/core/clock.h"
#include "daemon/core/coordinator_config.h"
#include "daemon/core/diagnosis.h"
#include "daemon/core/step_merge.h"

namespace fabricpulse::coordinator {

// One per sweep, used from the sweep's thread only. Everything it points to
// outlives it.
class SweepRecorder {
 public:
  // `trigger` is "cli", "schedule:<name>" or "isolation:<sweep id>".
  SweepRecorder(const SweepPlan& plan, std::string trigger,
                const core::CoordinatorConfig* config, HistoryStore* history,
                CoordinatorMetrics* metrics, core::Clock* clock);

  // Records the sweep as running, with its baseline change when its backend
  // version or topology differs from the plan's newest good sweep on the
  // same members (baseline_change.h; its steps are then not judged).
  // Errors: INTERNAL the history refused it (the sweep must not run
  // unrecorded).
  absl::Status Begin();
  // Sees every event before the client does: judges a result against its
  // baseline (core::JudgeStep over the history's succeeded sweeps; fills
  // baseline_busbw, baseline_time_seconds, baseline_sweeps and
  // regression), stores it and exports its measured series; stores and
  // exports the communicator's init time. An isolation's sweep (trigger
  // "isolation:...") is stored only: neither judged nor exported per step.
  void OnEvent(v1::SweepEvent& event);
  // Ends the record: the straggler (never for a preempted sweep), the
  // outcome, the diagnosis (when the sweep was diagnosed) and the sweep's
  // series. Only here, and only for a plan's sweep that succeeded, are its
  // steps' verdicts exported (CoordinatorMetrics::RecordVerdict): a
  // running, failed, aborted or preempted sweep, or an ad-hoc one, never
  // sets a baseline or regression series.
  // A succeeded sweep with a baseline change counts it
  // (CoordinatorMetrics::BaselineChanged).
  // Returns the `finished` event; `status` has the culprit prepended when
  // the diagnosis names one.
  v1::SweepEvent Finish(absl::Status& status,
                        const std::optional<core::Diagnosis>& diagnosis,
                        absl::Duration duration);

  // The first step judged regressed; nullopt when none was (always for an
  // isolation's sweeps: they are not judged, see auto_isolator.h).
  const std::optional<IsolationStep>& first_regression() const {
    return first_regression_;
  }
  // How many results the sweep sent (the index of the step it failed in).
  int results() const { return results_; }

 private:
  void RecordResult(v1::StepResult& result);
  void Judge(v1::StepResult& result);

  const SweepPlan& plan_;
  const std::string trigger_;
  const core::CoordinatorConfig* const config_;
  HistoryStore* const history_;
  CoordinatorMetrics* const metrics_;
  core::Clock* const clock_;
  std::vector<core::MergedStep> merged_;  // for the straggler signal
  // Set by Begin: this sweep starts a new baseline.
  std::optional<BaselineChange> baseline_change_;
  // A plan sweep's judged results, exported when it succeeds; at most the
  // sweep's step count (core::kMaxSteps).
  std::vector<v1::StepResult> judged_;
  // An isolation's sweep (trigger "isolation:..."): not judged, no series.
  const bool isolation_;
  // How the sweep measures (core::MeasurementKey): its baselines only
  // compare sweeps measured the same way.
  const std::string method_key_;
  std::optional<IsolationStep> first_regression_;
  int results_ = 0;
  // The pairwise matrix's node pairs (at most nranks^2 / 2).
  std::map<NodePairKey, NodePairStat> node_pairs_;
};

// "succeeded", "aborted", "preempted" (busy_gpus.h's PreemptedError) or
// "failed".
std::string OutcomeName(const absl::Status& status);

}  // namespace fabricpulse::coordinator
