#include "daemon/coordinator/metrics_restore.h"

#include <set>
#include <string>

#include "daemon/coordinator/history_convert.h"

namespace fabricpulse::coordinator {

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
    for (const StepRecord& step : sweep->steps) {
      metrics.RestoreStep(r.plan, ResultFromStepRecord(step), r.nranks);
    }
  }
  return static_cast<int>(seen.size());
}

}  // namespace fabricpulse::coordinator
