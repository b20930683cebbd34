#include "daemon/coordinator/metrics_restore.h"

#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "daemon/coordinator/history_convert.h"
#include "daemon/coordinator/regression_confirm.h"

namespace fabricpulse::coordinator {

namespace {

// A step's identity across sweeps of one plan.
std::string StepKeyText(const v1::StepResult& r) {
  return absl::StrCat(r.step().op(), "/", r.step().dtype(), "/",
                      r.step().bytes(), "/", r.step().in_place());
}

// The steps that regressed in the plan's succeeded sweep before `newest`
// (in `recent`, newest first), by StepKeyText.
std::set<std::string> RegressedBefore(HistoryStore& history,
                                      const std::vector<SweepRecord>& recent,
                                      const SweepRecord& newest) {
  std::set<std::string> regressed;
  bool past_newest = false;
  for (const SweepRecord& r : recent) {
    if (r.id == newest.id) {
      past_newest = true;
      continue;
    }
    if (!past_newest || r.plan != newest.plan || r.status != kSweepSucceeded ||
        r.nranks != newest.nranks) {
      continue;
    }
    auto sweep = history.GetSweep(r.id);
    if (!sweep.ok()) break;
    for (const StepRecord& step : sweep->steps) {
      const v1::StepResult result = ResultFromStepRecord(step);
      if (result.regression() && result.baseline_sweeps() > 0) {
        regressed.insert(StepKeyText(result));
      }
    }
    break;
  }
  return regressed;
}

}  // namespace

int RestorePlanSeries(HistoryStore& history, CoordinatorMetrics& metrics,
                      const std::set<std::string>& configured_plans) {
  auto recent = history.ListSweeps(1000);  // newest first
  if (!recent.ok()) return 0;
  std::set<std::string> seen;
  for (const SweepRecord& r : *recent) {
    if (r.status != kSweepSucceeded) continue;
    if (r.plan != "adhoc" && !configured_plans.contains(r.plan)) continue;
    if (!seen.insert(r.plan).second) continue;
    metrics.RestoreLastSuccess(r.plan, r.finished);
    // Ad-hoc sweeps differ from one another: their series are not a plan's
    // state and are left for the next ad-hoc sweep to set.
    if (r.plan == "adhoc") continue;
    auto sweep = history.GetSweep(r.id);
    if (!sweep.ok()) continue;
    std::vector<v1::StepResult> results;
    for (const StepRecord& step : sweep->steps) {
      results.push_back(ResultFromStepRecord(step));
    }
    // The confirmation as it was computed when the sweep finished.
    const std::set<std::string> before = RegressedBefore(history, *recent, r);
    const std::vector<bool> confirmed =
        ConfirmedRegressions(results, [&before](const v1::StepResult& result) {
          return before.contains(StepKeyText(result));
        });
    for (size_t i = 0; i < results.size(); ++i) {
      metrics.RestoreStep(r.plan, results[i], r.nranks, confirmed[i]);
    }
  }
  return static_cast<int>(seen.size());
}

}  // namespace fabricpulse::coordinator
