// What the coordinator's Prometheus series showed before a restart, rebuilt
// from the history at start-up, so that dashboards and alerts do not go
// blank until each plan runs again (a day, for a nightly plan).
#pragma once

#include <set>
#include <string>

#include "daemon/coordinator/coordinator_metrics.h"
#include "daemon/coordinator/store/history_store.h"

namespace fabricpulse::coordinator {

// For each configured plan's newest succeeded sweep among the last 1,000
// sweeps (and ad-hoc sweeps'), sets
// fabricpulse_last_success_timestamp_seconds{plan} and, but for "adhoc"
// (ad-hoc sweeps are not a plan's state), every step's busbw,
// algbw, latency, baseline and regression gauges as that sweep left them
// (CoordinatorMetrics::RestoreStep: no regression is counted again;
// fabricpulse_regression_confirmed is computed again as it was when the
// sweep finished, against the plan's succeeded sweep before it). These
// are the values a succeeded plan sweep publishes when it completes, so a
// restart shows what was shown before it. A step stored without a baseline
// of at least baseline.min_sweeps sweeps (baseline_sweeps 0, e.g. judged
// by an older coordinator against one sweep) restores no baseline and no
// regression. A
// history that cannot be read restores nothing. A plan no longer in
// `configured_plans` (removed from the config) restores nothing: its series
// would come back, and its no-recent-success alert fire, for a plan that no
// longer runs. Returns how many plans (ad-hoc included) were restored.
int RestorePlanSeries(HistoryStore& history, CoordinatorMetrics& metrics,
                      const std::set<std::string>& configured_plans);

}  // namespace fabricpulse::coordinator
