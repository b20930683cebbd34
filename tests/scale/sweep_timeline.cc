#include "tests/scale/sweep_timeline.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "daemon/core/stats.h"

namespace fabricpulse::scale {
namespace {

std::string StatsJson(const MillisStats& s) {
  return absl::StrFormat(R"({"n": %d, "p50": %.3f, "p99": %.3f, "max": %.3f})",
                         s.n, s.p50, s.p99, s.max);
}

}  // namespace

MillisStats MillisStatsOf(const std::vector<absl::Duration>& samples) {
  std::vector<double> ms;
  ms.reserve(samples.size());
  for (absl::Duration d : samples) ms.push_back(absl::ToDoubleMilliseconds(d));
  const core::IterationStats stats = core::ComputeStats(ms);
  MillisStats out;
  out.n = samples.size();
  out.p50 = stats.p50;
  out.p99 = stats.p99;
  out.max = stats.max;
  return out;
}

OverheadReport Summarize(const std::vector<SweepTimeline>& sweeps) {
  OverheadReport report;
  std::vector<absl::Duration> steps, started, first, e2e;
  for (const SweepTimeline& t : sweeps) {
    report.sweeps++;
    if (!t.ok) {
      report.failed++;
      continue;
    }
    report.nodes = t.nodes;
    report.nranks = t.nranks;
    report.results_per_sweep = t.results.size();
    for (size_t i = 1; i < t.results.size(); ++i) {
      steps.push_back(t.results[i] - t.results[i - 1]);
    }
    if (t.started != absl::InfinitePast()) {
      started.push_back(t.started - t.called);
      if (!t.results.empty()) first.push_back(t.results.front() - t.started);
    }
    e2e.push_back(t.ended - t.called);
  }
  report.step_overhead = MillisStatsOf(steps);
  report.started = MillisStatsOf(started);
  report.first_result = MillisStatsOf(first);
  report.end_to_end = MillisStatsOf(e2e);
  return report;
}

std::string ReportJson(const OverheadReport& r, const std::string& label) {
  const std::string escaped =
      absl::StrReplaceAll(label, {{"\\", "\\\\"}, {"\"", "\\\""}});
  return absl::StrCat("{\"label\": \"", escaped, "\", \"sweeps\": ", r.sweeps,
                      ", \"failed\": ", r.failed, ", \"nodes\": ", r.nodes,
                      ", \"nranks\": ", r.nranks,
                      ", \"results_per_sweep\": ", r.results_per_sweep,
                      ", \"step_overhead_ms\": ", StatsJson(r.step_overhead),
                      ", \"started_ms\": ", StatsJson(r.started),
                      ", \"first_result_ms\": ", StatsJson(r.first_result),
                      ", \"sweep_e2e_ms\": ", StatsJson(r.end_to_end), "}");
}

}  // namespace fabricpulse::scale
