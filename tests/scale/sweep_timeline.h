// What scale_client measures of each sweep (when each event arrived) and
// the summary it prints: per-step control overhead, first result, end to
// end. With simulated agents that report at once, the time between two
// result events is the coordinator's own work per step (merge, history,
// metrics, fan-in), the collective excluded.
#pragma once

#include <string>
#include <vector>

#include "absl/time/time.h"

namespace fabricpulse::scale {

struct SweepTimeline {
  absl::Time called;                // RunSweep issued
  absl::Time started;               // `started` event (InfinitePast when none)
  std::vector<absl::Time> results;  // each `result` event, in order
  absl::Time ended;                 // stream finished
  bool ok = false;
  int nodes = 0;
  int nranks = 0;
};

// Nearest-rank percentiles (core::ComputeStats) of samples in milliseconds.
struct MillisStats {
  size_t n = 0;
  double p50 = 0;
  double p99 = 0;
  double max = 0;
};

struct OverheadReport {
  int sweeps = 0;
  int failed = 0;
  int nodes = 0;   // of the last successful sweep
  int nranks = 0;  // of the last successful sweep
  size_t results_per_sweep = 0;
  // Successful sweeps only:
  MillisStats step_overhead;  // between consecutive result events
  MillisStats started;        // called -> started (planning, Describe)
  MillisStats first_result;   // started -> first result (fan-out, step 0)
  MillisStats end_to_end;     // called -> stream finished
};

MillisStats MillisStatsOf(const std::vector<absl::Duration>& samples);

OverheadReport Summarize(const std::vector<SweepTimeline>& sweeps);

// One line of JSON: {"label": ..., "sweeps": .., "failed": .., "nodes": ..,
// "nranks": .., "results_per_sweep": .., "step_overhead_ms": {"n", "p50",
// "p99", "max"}, "started_ms": {...}, "first_result_ms": {...},
// "sweep_e2e_ms": {...}}. `label` must not need JSON escaping beyond
// quotes and backslashes (which are escaped).
std::string ReportJson(const OverheadReport& report, const std::string& label);

}  // namespace fabricpulse::scale
