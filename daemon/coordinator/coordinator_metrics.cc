#include "daemon/coordinator/coordinator_metrics.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "daemon/core/log.h"

namespace fabricpulse::coordinator {
namespace {

constexpr std::array<const char*, 5> kOutcomes = {
    "succeeded", "failed", "aborted", "interrupted", "preempted"};
constexpr std::array<const char*, 4> kTriggers = {"cli", "schedule",
                                                  "isolation", "campaign"};
// The verdicts of the coordinator's isolations (auto_isolator.h).
constexpr std::array<const char*, 7> kIsolationVerdicts = {
    "node", "link", "nodes", "none", "gave_up", "skipped", "interrupted"};

std::string PlanLabel(const std::string& plan) {
  return plan.empty() ? "adhoc" : plan;
}

// A value outside the contract's closed set would be an unbounded label:
// fall back to `fallback` (loudly) instead.
template <size_t N>
std::string Bounded(const std::string& value,
                    const std::array<const char*, N>& allowed,
                    const char* fallback, const char* what) {
  if (std::find(allowed.begin(), allowed.end(), value) != allowed.end()) {
    return value;
  }
  FP_LOG_ERROR(absl::StrCat("metrics: unknown sweep ", what, " \"", value,
                            "\", counted as \"", fallback, "\""));
  return fallback;
}

prometheus::Family<prometheus::Gauge>& GaugeFamily(
    prometheus::Registry& registry, const char* name, const char* help) {
  return prometheus::BuildGauge().Name(name).Help(help).Register(registry);
}

prometheus::Family<prometheus::Counter>& CounterFamily(
    prometheus::Registry& registry, const char* name, const char* help) {
  return prometheus::BuildCounter().Name(name).Help(help).Register(registry);
}

}  // namespace

CoordinatorMetrics::CoordinatorMetrics(prometheus::Registry& registry)
    : busbw_(GaugeFamily(registry, "fabricpulse_busbw_bytes_per_second",
                         "Last measured bus bandwidth (nccl-tests busbw)")),
      algbw_(GaugeFamily(registry, "fabricpulse_algbw_bytes_per_second",
                         "Last measured algorithm bandwidth")),
      latency_(
          GaugeFamily(registry, "fabricpulse_latency_seconds",
                      "Last time per op of the slowest rank, by stat (mean, "
                      "p50, p99)")),
      baseline_(GaugeFamily(registry,
                            "fabricpulse_baseline_busbw_bytes_per_second",
                            "Median busbw of the plan's last succeeded "
                            "sweeps (at least baseline.min_sweeps)")),
      regression_(
          GaugeFamily(registry, "fabricpulse_regression",
                      "1 while the step of the plan's last succeeded sweep "
                      "is worse than baseline x threshold and its spread")),
      regression_confirmed_(GaugeFamily(
          registry, "fabricpulse_regression_confirmed",
          "1 while the step of the plan's last succeeded sweep regressed and "
          "the regression persisted: in the sweep before too, or over 3 "
          "neighbouring sizes")),
      regressions_(CounterFamily(registry, "fabricpulse_regressions_total",
                                 "Regressed steps of succeeded plan sweeps")),
      sweeps_(CounterFamily(registry, "fabricpulse_sweeps_total",
                            "Finished sweeps, by plan, trigger and outcome")),
      sweep_duration_(
          GaugeFamily(registry, "fabricpulse_sweep_duration_seconds",
                      "Wall time of the plan's last finished sweep")),
      last_success_timestamp_(
          GaugeFamily(registry, "fabricpulse_last_success_timestamp_seconds",
                      "Unix time of the plan's last successful sweep")),
      last_sweep_success_(
          GaugeFamily(registry, "fabricpulse_last_sweep_success",
                      "Whether the plan's last sweep succeeded")),
      comm_init_(GaugeFamily(registry, "fabricpulse_comm_init_seconds",
                             "Last communicator init time (slowest rank)")),
      agents_(GaugeFamily(registry, "fabricpulse_agents",
                          "Registered agents by state")),
      agents_alive_(agents_.Add({{"state", "alive"}})),
      agents_lost_(agents_.Add({{"state", "lost"}})),
      hangs_(
          CounterFamily(registry, "fabricpulse_hangs_total",
                        "Failed sweeps whose diagnosis named a culprit on this "
                        "node")),
      hang_culprit_(GaugeFamily(registry, "fabricpulse_hang_culprit",
                                "1 for the culprit named by the last failed "
                                "sweep's diagnosis")),
      links_degraded_(GaugeFamily(
          registry, "fabricpulse_node_links_degraded",
          "1 while the node has fewer NVLinks active or less NIC bandwidth "
          "up than its peers of the same GPU model")),
      late_arrival_(CounterFamily(
          registry, "fabricpulse_late_arrival_total",
          "Steps in which this rank entered the collective last, by the "
          "straggler margin")),
      wrong_elements_(CounterFamily(
          registry, "fabricpulse_wrong_elements_total",
          "Wrong output elements the data check found on this rank")),
      schedule_deferred_(CounterFamily(
          registry, "fabricpulse_schedule_deferred_total",
          "Scheduled firings held back (queued) by busy GPUs or members")),
      baseline_changes_(CounterFamily(
          registry, "fabricpulse_baseline_changes_total",
          "Succeeded sweeps that started a new baseline: another backend "
          "version or topology than the plan's newest good sweep")),
      isolations_(CounterFamily(
          registry, "fabricpulse_isolations_total",
          "Isolations the coordinator ran by itself after a plan's sweep "
          "regressed or failed, by verdict")),
      pairs_(registry),
      campaigns_(registry) {
  // Ad-hoc sweeps have baselines too: their counters start at 0 as a
  // configured plan's do (AddPlan).
  AddPlan("", /*isolates=*/false);
}

void CoordinatorMetrics::IsolationFinished(const std::string& plan,
                                           const std::string& verdict) {
  isolations_
      .Add({{"plan", PlanLabel(plan)},
            {"verdict",
             Bounded(verdict, kIsolationVerdicts, "gave_up", "isolation")}})
      .Increment();
}

void CoordinatorMetrics::BaselineChanged(const std::string& plan,
                                         bool backend_version, bool topology) {
  const std::string plan_label = PlanLabel(plan);
  if (backend_version) {
    baseline_changes_.Add({{"plan", plan_label}, {"cause", "backend_version"}})
        .Increment();
  }
  if (topology) {
    baseline_changes_.Add({{"plan", plan_label}, {"cause", "topology"}})
        .Increment();
  }
}

namespace {

prometheus::Labels StepLabels(const std::string& plan,
                              const v1::StepResult& result, int nranks) {
  const v1::StepKey& key = result.step();
  return {{"plan", PlanLabel(plan)},
          {"op", key.op()},
          {"dtype", key.dtype()},
          {"size", absl::StrCat(key.bytes())},
          {"placement", key.in_place() ? "in_place" : "out_of_place"},
          {"nranks", absl::StrCat(nranks)}};
}

}  // namespace

void CoordinatorMetrics::RestoreStep(const std::string& plan,
                                     const v1::StepResult& result, int nranks,
                                     bool confirmed) {
  RecordStep(plan, result, nranks);
  SetVerdictGauges(plan, confirmed, result, nranks);
}

bool CoordinatorMetrics::WasRegressed(const std::string& plan,
                                      const v1::StepResult& result,
                                      int nranks) {
  const prometheus::Labels labels = StepLabels(plan, result, nranks);
  absl::MutexLock lock(&removable_mu_);
  return regression_.Has(labels) && regression_.Add(labels).Value() == 1;
}

void CoordinatorMetrics::RecordVerdict(const std::string& plan,
                                       const v1::StepResult& result, int nranks,
                                       bool confirmed) {
  prometheus::Counter& regressions =
      SetVerdictGauges(plan, confirmed, result, nranks);
  if (result.regression() && result.baseline_sweeps() > 0) {
    regressions.Increment();
  }
}

void CoordinatorMetrics::RecordStep(const std::string& plan,
                                    const v1::StepResult& result, int nranks) {
  const prometheus::Labels labels = StepLabels(plan, result, nranks);
  const std::string plan_label = PlanLabel(plan);
  absl::MutexLock lock(&removable_mu_);
  std::vector<prometheus::Labels> evicted;
  const size_t cap = plan_label == "adhoc" ? kMaxAdhocStepSeries : SIZE_MAX;
  if (!step_series_.Admit(plan_label, labels, cap, &evicted)) return;
  for (const prometheus::Labels& old : evicted) RemoveStepSeries(old);
  busbw_.Add(labels).Set(result.busbw_bytes_per_second());
  algbw_.Add(labels).Set(result.algbw_bytes_per_second());
  prometheus::Labels mean = labels;
  mean.emplace("stat", "mean");
  latency_.Add(mean).Set(result.time_seconds());
  // Percentiles that were not measured are absent, never a copy.
  const std::tuple<const char*, bool, double> percentiles[] = {
      {"p50", result.has_p50_seconds(), result.p50_seconds()},
      {"p99", result.has_p99_seconds(), result.p99_seconds()}};
  for (const auto& [stat, measured, seconds] : percentiles) {
    prometheus::Labels with_stat = labels;
    with_stat.emplace("stat", stat);
    if (measured) {
      latency_.Add(with_stat).Set(seconds);
    } else if (latency_.Has(with_stat)) {
      latency_.Remove(&latency_.Add(with_stat));
    }
  }
}

prometheus::Counter& CoordinatorMetrics::SetVerdictGauges(
    const std::string& plan, bool confirmed, const v1::StepResult& result,
    int nranks) {
  const prometheus::Labels labels = StepLabels(plan, result, nranks);
  const double baseline_busbw = result.baseline_busbw_bytes_per_second();
  // No baseline, no regression: also for steps stored by a coordinator
  // that judged against a single sweep (baseline_sweeps 0).
  const bool regressed = result.regression() && result.baseline_sweeps() > 0;
  {
    // Every one of these series can be removed by another sweep's end
    // (RemoveStepSeries): a series is written only under the lock, or a
    // concurrent sweep of the same plan (a campaign's group sweeps) could
    // free it between Add and Set.
    absl::MutexLock lock(&removable_mu_);
    if (result.baseline_sweeps() > 0 && baseline_busbw > 0) {
      baseline_.Add(labels).Set(baseline_busbw);
    } else if (baseline_.Has(labels)) {
      // A stale baseline would keep alerts comparing against it.
      baseline_.Remove(&baseline_.Add(labels));
    }
    regression_.Add(labels).Set(regressed ? 1 : 0);
    regression_confirmed_.Add(labels).Set(regressed && confirmed ? 1 : 0);
  }
  return regressions_.Add(
      {{"plan", PlanLabel(plan)}, {"op", result.step().op()}});
}

void CoordinatorMetrics::SweepFinished(const std::string& plan,
                                       const std::string& trigger,
                                       const std::string& outcome,
                                       double duration_seconds,
                                       absl::Time finished) {
  const std::string plan_label = PlanLabel(plan);
  const std::string trigger_label =
      Bounded(trigger, kTriggers, "cli", "trigger");
  const std::string outcome_label =
      Bounded(outcome, kOutcomes, "failed", "outcome");
  // All outcomes exist from the first sweep on, so that increase() and
  // rate() see the first failure of a plan.
  for (const char* o : kOutcomes) {
    prometheus::Counter& sweeps = sweeps_.Add(
        {{"plan", plan_label}, {"trigger", trigger_label}, {"outcome", o}});
    if (outcome_label == o) sweeps.Increment();
  }
  const prometheus::Labels labels = {{"plan", plan_label}};
  const bool succeeded = outcome_label == "succeeded";
  // A yield to a foreign GPU process says nothing about the fabric: the
  // plan's last result (success, duration) stays the one before it.
  if (outcome_label != "preempted") {
    sweep_duration_.Add(labels).Set(duration_seconds);
    last_sweep_success_.Add(labels).Set(succeeded ? 1 : 0);
  }
  if (succeeded) {
    last_success_timestamp_.Add(labels).Set(
        absl::ToDoubleSeconds(finished - absl::UnixEpoch()));
  }
  // Ad-hoc sweeps differ from one another: only the last one's steps are
  // kept. A plan's failed sweep leaves the steps it did not reach as the
  // plan's last good sweep left them.
  if (succeeded || plan_label == "adhoc") {
    absl::MutexLock lock(&removable_mu_);
    for (const prometheus::Labels& old : step_series_.Replace(plan_label)) {
      RemoveStepSeries(old);
    }
  }
}

void CoordinatorMetrics::RemoveStepSeries(const prometheus::Labels& labels) {
  for (prometheus::Family<prometheus::Gauge>* family :
       {&busbw_, &algbw_, &baseline_, &regression_, &regression_confirmed_}) {
    if (family->Has(labels)) family->Remove(&family->Add(labels));
  }
  for (const char* stat : {"mean", "p50", "p99"}) {
    prometheus::Labels with_stat = labels;
    with_stat.emplace("stat", stat);
    if (latency_.Has(with_stat)) latency_.Remove(&latency_.Add(with_stat));
  }
}

void CoordinatorMetrics::RestoreLastSuccess(const std::string& plan,
                                            absl::Time when) {
  last_success_timestamp_.Add({{"plan", plan.empty() ? "adhoc" : plan}})
      .Set(absl::ToDoubleSeconds(when - absl::UnixEpoch()));
}

void CoordinatorMetrics::CommInit(int nranks, double seconds) {
  comm_init_.Add({{"nranks", absl::StrCat(nranks)}}).Set(seconds);
}

void CoordinatorMetrics::SetAgents(int alive, int lost) {
  agents_alive_.Set(alive);
  agents_lost_.Set(lost);
}

void CoordinatorMetrics::NodeRegistered(const std::string& node) {
  hangs_.Add({{"node", node}});
  links_degraded_.Add({{"node", node}});
}

void CoordinatorMetrics::NodeLinks(const std::string& node, bool degraded) {
  links_degraded_.Add({{"node", node}}).Set(degraded ? 1 : 0);
}

void CoordinatorMetrics::HangCulprit(const std::string& node, int gpu,
                                     int rank) {
  hangs_.Add({{"node", node}}).Increment();
  absl::MutexLock lock(&removable_mu_);
  // A CPU rank (gpu -1) has no gpu label, as dcgm-exporter's habit has it.
  prometheus::Labels labels = {{"node", node}, {"rank", absl::StrCat(rank)}};
  if (gpu >= 0) labels["gpu"] = absl::StrCat(gpu);
  prometheus::Gauge& culprit = hang_culprit_.Add(labels);
  if (culprit_ != nullptr && culprit_ != &culprit) {
    hang_culprit_.Remove(culprit_);
  }
  culprit.Set(1);
  culprit_ = &culprit;
}

void CoordinatorMetrics::ClearHangCulprit() {
  absl::MutexLock lock(&removable_mu_);
  if (culprit_ == nullptr) return;
  hang_culprit_.Remove(culprit_);
  culprit_ = nullptr;
}

void CoordinatorMetrics::WrongElements(const std::string& node, int rank,
                                       int64_t wrong) {
  wrong_elements_.Add({{"node", node}, {"rank", absl::StrCat(rank)}})
      .Increment(static_cast<double>(wrong));
}

void CoordinatorMetrics::LateArrival(const std::string& node, int rank) {
  late_arrival_.Add({{"node", node}, {"rank", absl::StrCat(rank)}}).Increment();
}

void CoordinatorMetrics::AddPlan(const std::string& plan, bool isolates) {
  const std::string plan_label = PlanLabel(plan);
  for (const char* cause : {"backend_version", "topology"}) {
    baseline_changes_.Add({{"plan", plan_label}, {"cause", cause}});
  }
  if (!isolates) return;
  for (const char* verdict : kIsolationVerdicts) {
    isolations_.Add({{"plan", plan_label}, {"verdict", verdict}});
  }
}

void CoordinatorMetrics::AddSchedule(const std::string& schedule) {
  for (const char* reason : {"gpu_busy", "members_busy"}) {
    schedule_deferred_.Add({{"schedule", schedule}, {"reason", reason}});
  }
}

void CoordinatorMetrics::ScheduleDeferred(const std::string& schedule,
                                          const std::string& reason) {
  schedule_deferred_.Add({{"schedule", schedule}, {"reason", reason}})
      .Increment();
}

}  // namespace fabricpulse::coordinator
