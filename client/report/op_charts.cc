#include "client/report/op_charts.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "client/report/line_chart.h"
#include "client/report/plot_scale.h"
#include "daemon/core/byte_size.h"

namespace fabricpulse::client::report {
namespace {

double GBps(double bytes_per_second) { return bytes_per_second / 1e9; }

const char* PlacementName(bool in_place) {
  return in_place ? "in-place" : "out-of-place";
}

// The steps of one op and placement, by size.
struct Placement {
  std::vector<const v1::StepResult*> steps;
  int baseline_sweeps = 0;
};

struct OpSteps {
  std::string op;
  Placement placements[2];  // [out-of-place, in-place]
};

std::vector<OpSteps> GroupByOp(const v1::GetSweepResponse& sweep) {
  std::set<std::string> pair_ops;
  for (const v1::StepResult& r : sweep.results()) {
    if (r.pairs_size() > 0) pair_ops.insert(r.step().op());
  }
  std::vector<OpSteps> ops;
  std::map<std::string, size_t> index;
  for (const v1::StepResult& r : sweep.results()) {
    if (pair_ops.count(r.step().op()) > 0) continue;
    auto [it, added] = index.try_emplace(r.step().op(), ops.size());
    if (added) ops.push_back(OpSteps{r.step().op(), {}});
    Placement& p = ops[it->second].placements[r.step().in_place() ? 1 : 0];
    p.steps.push_back(&r);
    p.baseline_sweeps = std::max(p.baseline_sweeps, r.baseline_sweeps());
  }
  for (OpSteps& op : ops) {
    for (Placement& p : op.placements) {
      std::stable_sort(p.steps.begin(), p.steps.end(),
                       [](const v1::StepResult* a, const v1::StepResult* b) {
                         return a->step().bytes() < b->step().bytes();
                       });
    }
  }
  return ops;
}

// What a chart plots of a step, and its baseline (absent: none).
struct Measure {
  double (*value)(const v1::StepResult&);
  std::optional<double> (*baseline)(const v1::StepResult&);
};

double BusbwOf(const v1::StepResult& r) {
  return GBps(r.busbw_bytes_per_second());
}
std::optional<double> BaselineBusbwOf(const v1::StepResult& r) {
  // 0 means none yet (types.proto).
  if (r.baseline_busbw_bytes_per_second() <= 0) return std::nullopt;
  return GBps(r.baseline_busbw_bytes_per_second());
}
double TimeOf(const v1::StepResult& r) { return r.time_seconds(); }
std::optional<double> BaselineTimeOf(const v1::StepResult& r) {
  if (!r.has_baseline_time_seconds()) return std::nullopt;
  return r.baseline_time_seconds();
}

ChartSpec OpChart(const OpSteps& op, const Measure& measure) {
  ChartSpec chart;
  chart.x_kind = ScaleKind::kLog2;
  chart.x_label = "message size (bytes, log 2)";
  chart.x_tick_label = SizeTickLabel;
  for (int placement = 0; placement < 2; ++placement) {
    const Placement& p = op.placements[placement];
    if (p.steps.empty()) continue;
    const bool in_place = placement == 1;
    ChartSeries band;
    band.name = absl::StrCat("baseline, ", PlacementName(in_place));
    band.tooltip =
        absl::StrCat("baseline ", PlacementName(in_place), ": median of ",
                     p.baseline_sweeps, " sweeps of the plan");
    band.css_class = absl::StrCat("baseline-", PlacementName(in_place));
    band.color = PaletteColor(placement);
    band.band = true;
    ChartSeries series;
    series.name = PlacementName(in_place);
    series.css_class = PlacementName(in_place);
    series.color = PaletteColor(placement);
    series.marker = in_place ? Marker::kSquare : Marker::kCircle;
    series.dashed = in_place;
    for (const v1::StepResult* r : p.steps) {
      const double x = static_cast<double>(r->step().bytes());
      series.points.push_back(
          ChartPoint{x, measure.value(*r), DescribeStep(*r), r->regression()});
      if (std::optional<double> b = measure.baseline(*r)) {
        band.points.push_back(ChartPoint{x, *b, "", false});
      }
    }
    if (!band.points.empty()) chart.series.push_back(std::move(band));
    chart.series.push_back(std::move(series));
  }
  return chart;
}

}  // namespace

std::string DescribeStep(const v1::StepResult& r) {
  std::string text = absl::StrFormat(
      "%s %s %s: busbw %.4g GB/s, algbw %.4g GB/s, time %s", r.step().op(),
      core::HumanByteSize(r.step().bytes()), PlacementName(r.step().in_place()),
      GBps(r.busbw_bytes_per_second()), GBps(r.algbw_bytes_per_second()),
      SecondsTickLabel(r.time_seconds()));
  if (r.has_p50_seconds() && r.has_p99_seconds()) {
    absl::StrAppend(&text, " (p50 ", SecondsTickLabel(r.p50_seconds()),
                    ", p99 ", SecondsTickLabel(r.p99_seconds()), ")");
  }
  if (r.baseline_busbw_bytes_per_second() > 0) {
    absl::StrAppendFormat(&text, "; baseline %.4g GB/s",
                          GBps(r.baseline_busbw_bytes_per_second()));
    if (r.has_baseline_time_seconds()) {
      absl::StrAppend(&text, ", ", SecondsTickLabel(r.baseline_time_seconds()));
    }
    absl::StrAppend(&text, " (median of ", r.baseline_sweeps(), " sweeps)");
  }
  if (r.regression()) absl::StrAppend(&text, "; REGRESSION");
  if (r.wrong() > 0) absl::StrAppend(&text, "; ", r.wrong(), " wrong");
  return text;
}

std::string RenderOpCharts(const v1::GetSweepResponse& sweep,
                           absl::string_view id_prefix) {
  std::string out;
  for (const OpSteps& op : GroupByOp(sweep)) {
    out += "<div class=\"op-charts\">";
    for (bool latency : {false, true}) {
      const char* what = latency ? "latency" : "busbw";
      ChartSpec chart = latency
                            ? OpChart(op, Measure{TimeOf, BaselineTimeOf})
                            : OpChart(op, Measure{BusbwOf, BaselineBusbwOf});
      chart.id = absl::StrCat(id_prefix, "-", what, "-", op.op);
      chart.classes = {what};
      chart.attributes = {{"op", op.op}};
      chart.title =
          absl::StrCat(op.op, latency ? ": latency" : ": bus bandwidth");
      chart.y_label = latency ? "time (log 10)" : "busbw (GB/s)";
      if (latency) {
        chart.y_kind = ScaleKind::kLog10;
        chart.y_tick_label = SecondsTickLabel;
      }
      out += RenderLineChart(chart);
    }
    out += "</div>";
  }
  return out;
}

}  // namespace fabricpulse::client::report
