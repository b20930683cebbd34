// The coordinator's Prometheus series (the contract is docs/metrics.md).
//
// Every family is registered once, at construction. A series (one label set)
// is created the first time it is written and then lives until the process
// ends, except the culprit and baseline series, which are removed when they
// no longer apply, and the per-step series (busbw, algbw, latency, baseline,
// regression), which are replaced per sweep (StepSeriesIndex): a named
// plan's after each succeeded sweep of it, the ad-hoc ones after each ad-hoc
// sweep that measured a step, at most kMaxAdhocStepSeries of them. Label
// values come only from bounded domains, never from ids or timestamps; the
// worst-case count is in docs/metrics.md ("Series count").
#pragma once

#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "daemon/coordinator/node_verdict_metrics.h"
#include "daemon/coordinator/pair_metrics.h"
#include "daemon/coordinator/step_series_index.h"
#include "fabricpulse/v1/types.pb.h"
#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "prometheus/gauge.h"
#include "prometheus/registry.h"

namespace fabricpulse::coordinator {

// Step series (label sets) kept for plan "adhoc": the first this many steps
// of the last ad-hoc sweep; further steps of that sweep are not exported.
inline constexpr size_t kMaxAdhocStepSeries = 512;

// Thread-safe: every method may be called from any thread, concurrently.
// Scrapes never wait on the fabric: they read the values last written.
// Label arguments that name a plan take "" as "adhoc".
class CoordinatorMetrics {
 public:
  // Registers the coordinator's families in `registry`, which must outlive
  // this object. Throws (prometheus-cpp) only if a family of the same name
  // but another type is already registered there: a programming error.
  explicit CoordinatorMetrics(prometheus::Registry& registry);

  CoordinatorMetrics(const CoordinatorMetrics&) = delete;
  CoordinatorMetrics& operator=(const CoordinatorMetrics&) = delete;

  // One merged step of a sweep, as it is measured. `plan`: the plan name or
  // "adhoc". Sets, for the labels {plan, op, dtype, size, placement,
  // nranks} taken from result.step() (size: decimal bytes; placement:
  // "in_place" or "out_of_place"):
  //   fabricpulse_busbw_bytes_per_second, fabricpulse_algbw_bytes_per_second,
  //   fabricpulse_latency_seconds{stat="mean"} = result.time_seconds (the
  //     slowest rank's mean), {stat="p50"} = result.p50_seconds,
  //     {stat="p99"} = result.p99_seconds; a percentile the result does not
  //     carry (not measured) is absent (removed if present).
  // Never the baseline or regression series (RecordVerdict). The step's
  // series are not written when plan "adhoc" already has
  // kMaxAdhocStepSeries step series of sweeps still running (see
  // SweepFinished).
  void RecordStep(const std::string& plan, const v1::StepResult& result,
                  int nranks);
  // The regression verdict of one step of a plan's sweep that completed
  // successfully (the caller's rule: never a running, failed or aborted
  // sweep, never an ad-hoc one). Same labels as RecordStep. Sets
  //   fabricpulse_baseline_busbw_bytes_per_second = the result's baseline
  //     busbw when it has a baseline (baseline_sweeps > 0 and a busbw > 0);
  //     otherwise the series is absent (removed if present),
  //   fabricpulse_regression = 1 when result.regression() and it has a
  //     baseline (baseline_sweeps > 0), else 0,
  //   fabricpulse_regression_confirmed = 1 when such a regression is
  //     `confirmed` (regression_confirm.h: it persisted over two sweeps or
  //     over neighbouring sizes), else 0: what the alert reads,
  // and increments fabricpulse_regressions_total{plan, op} on such a
  // regression
  // (the counter is created at 0 otherwise, so that increase() sees the
  // first regression).
  void RecordVerdict(const std::string& plan, const v1::StepResult& result,
                     int nranks, bool confirmed);
  // Both of the above from a stored result at start-up, without counting
  // its regression again in fabricpulse_regressions_total (created at 0
  // when absent).
  void RestoreStep(const std::string& plan, const v1::StepResult& result,
                   int nranks, bool confirmed);
  // Whether fabricpulse_regression of this step of `plan` is 1 now (the
  // plan's previous succeeded sweep regressed at it).
  bool WasRegressed(const std::string& plan, const v1::StepResult& result,
                    int nranks);

  // A sweep finished. `trigger`: "cli", "schedule", "isolation" or
  // "campaign"; `outcome`:
  // "succeeded", "failed", "aborted", "interrupted" or "preempted". Other
  // values are a caller bug: they are logged and counted as trigger "cli" /
  // outcome "failed", so that the label values stay bounded.
  // Increments fabricpulse_sweeps_total{plan, trigger, outcome} (creating
  // the plan's and trigger's other outcomes at 0), sets (except for
  // "preempted": a yield to a foreign GPU process is no result, so these
  // keep the plan's previous sweep)
  // fabricpulse_sweep_duration_seconds{plan} and
  // fabricpulse_last_sweep_success{plan} (1 only for "succeeded"), and on
  // success sets fabricpulse_last_success_timestamp_seconds{plan} to
  // `finished` (unix seconds). Then replaces the plan's step series: when
  // the sweep succeeded (any outcome for "adhoc") and a step was written
  // since the last replacement, the step series not written since then
  // are removed.
  void SweepFinished(const std::string& plan, const std::string& trigger,
                     const std::string& outcome, double duration_seconds,
                     absl::Time finished);

  // Restores fabricpulse_last_success_timestamp_seconds{plan} from the
  // history at start-up, so a restart does not make a plan look fresh or
  // stale.
  void RestoreLastSuccess(const std::string& plan, absl::Time when);

  // Sets fabricpulse_comm_init_seconds{nranks}: the last communicator init
  // time (slowest rank) of a communicator of `nranks` ranks.
  void CommInit(int nranks, double seconds);

  // Sets fabricpulse_agents{state="alive"} and {state="lost"}.
  void SetAgents(int alive, int lost);

  // The diagnosis of a failed sweep named this culprit (`gpu` -1 for CPU
  // ranks, exported as gpu="-1"). Increments fabricpulse_hangs_total{node}
  // and sets fabricpulse_hang_culprit{node, gpu, rank} to 1, removing the
  // series of the previously named culprit, so that at most one culprit
  // series exists.
  void HangCulprit(const std::string& node, int gpu, int rank);

  // A node registered: creates fabricpulse_hangs_total{node} at 0 (when
  // absent), so that increase() sees its first hang, and
  // fabricpulse_node_links_degraded{node} at 0.
  void NodeRegistered(const std::string& node);

  // Sets fabricpulse_node_links_degraded{node}: 1 while the node has links
  // below its peers' (link_health.h), else 0.
  void NodeLinks(const std::string& node, bool degraded);

  // Removes the fabricpulse_hang_culprit series, if any: for a failed sweep
  // whose diagnosis named no culprit. Idempotent.
  void ClearHangCulprit();

  // Adds `wrong` to fabricpulse_wrong_elements_total{node, rank}: the data
  // check found that many wrong output elements on `rank` (one series per
  // rank that ever corrupted, so at most the fleet's rank count).
  void WrongElements(const std::string& node, int rank, int64_t wrong);

  // Increments fabricpulse_late_arrival_total{node, rank}: `rank` on `node`
  // entered one step's collective last, by the straggler margin
  // (core::LateRank).
  void LateArrival(const std::string& node, int rank);

  // Exports a configured plan's event counters at 0, so that each exists
  // before its first increment and `increase()` sees that one too (an alert
  // rule needs no arm for a series' first sample):
  // fabricpulse_baseline_changes_total{plan, cause} for both causes, and,
  // when the plan `isolates` (isolate_on), fabricpulse_isolations_total{plan,
  // verdict} for all 7 verdicts. Call once per configured plan.
  void AddPlan(const std::string& plan, bool isolates);

  // Exports fabricpulse_schedule_deferred_total{schedule, reason} at 0 for
  // both reasons (gpu_busy, members_busy), so that the counter exists
  // before its first increment. Call once per configured schedule.
  void AddSchedule(const std::string& schedule);

  // Increments fabricpulse_schedule_deferred_total{schedule, reason}: a
  // firing of `schedule` was held back (queued) for `reason`, "gpu_busy" or
  // "members_busy". Counted once per firing, not per retry.
  void ScheduleDeferred(const std::string& schedule, const std::string& reason);
  // The node-pair series of a pairwise matrix sweep (pair_metrics.h).
  void NodePairs(const std::map<NodePairKey, NodePairStat>& stats) {
    pairs_.Publish(stats);
  }

  // A succeeded sweep of `plan` started a new baseline (baseline_change.h):
  // increments fabricpulse_baseline_changes_total{plan, cause} for cause
  // backend_version and/or topology, whichever changed. At most 2 series
  // per plan label.
  void BaselineChanged(const std::string& plan, bool backend_version,
                       bool topology);
  // An isolation after a sweep of `plan` ended (auto_isolator.h):
  // increments fabricpulse_isolations_total{plan, verdict}, verdict one of
  // node, link, nodes, none, gave_up, skipped, interrupted (at most 7
  // series per plan label; only plans with isolate_on have any).
  void IsolationFinished(const std::string& plan, const std::string& verdict);
  // Campaign plans' node verdict series (node_verdict_metrics.h).
  NodeVerdictMetrics& campaigns() { return campaigns_; }

 private:
  // RecordVerdict's gauges; returns the step's regressions counter.
  prometheus::Counter& SetVerdictGauges(const std::string& plan, bool confirmed,
                                        const v1::StepResult& result,
                                        int nranks);

  prometheus::Family<prometheus::Gauge>& busbw_;
  prometheus::Family<prometheus::Gauge>& algbw_;
  prometheus::Family<prometheus::Gauge>& latency_;
  prometheus::Family<prometheus::Gauge>& baseline_;
  prometheus::Family<prometheus::Gauge>& regression_;
  prometheus::Family<prometheus::Gauge>& regression_confirmed_;
  prometheus::Family<prometheus::Counter>& regressions_;
  prometheus::Family<prometheus::Counter>& sweeps_;
  prometheus::Family<prometheus::Gauge>& sweep_duration_;
  prometheus::Family<prometheus::Gauge>& last_success_timestamp_;
  prometheus::Family<prometheus::Gauge>& last_sweep_success_;
  prometheus::Family<prometheus::Gauge>& comm_init_;
  prometheus::Family<prometheus::Gauge>& agents_;
  prometheus::Gauge& agents_alive_;
  prometheus::Gauge& agents_lost_;
  prometheus::Family<prometheus::Counter>& hangs_;
  prometheus::Family<prometheus::Gauge>& hang_culprit_;
  prometheus::Family<prometheus::Gauge>& links_degraded_;
  prometheus::Family<prometheus::Counter>& late_arrival_;
  prometheus::Family<prometheus::Counter>& wrong_elements_;
  prometheus::Family<prometheus::Counter>& schedule_deferred_;
  prometheus::Family<prometheus::Counter>& baseline_changes_;
  prometheus::Family<prometheus::Counter>& isolations_;
  PairMetrics pairs_;
  NodeVerdictMetrics campaigns_;

  // Removes every step series of `labels` (the step's label set).
  void RemoveStepSeries(const prometheus::Labels& labels)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(removable_mu_);

  // Serializes the series that are ever removed (step series, culprit), so
  // that no thread writes a series another thread has just removed.
  absl::Mutex removable_mu_;
  StepSeriesIndex step_series_ ABSL_GUARDED_BY(removable_mu_);
  prometheus::Gauge* culprit_ ABSL_GUARDED_BY(removable_mu_) = nullptr;
};

}  // namespace fabricpulse::coordinator
