#include "client/report/trend_section.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "client/report/html_escape.h"
#include "client/report/line_chart.h"
#include "client/report/op_charts.h"
#include "client/report/plot_scale.h"
#include "client/report/sweep_metadata.h"
#include "daemon/core/byte_size.h"

namespace fabricpulse::client::report {
namespace {

struct TrendPoint {
  double time = 0;
  const v1::StepResult* step = nullptr;
};

// (op, in_place) -> bytes -> points; ops in first-seen order.
struct TrendChart {
  std::string op;
  bool in_place = false;
  std::map<uint64_t, std::vector<TrendPoint>> sizes;
};

// Indexes of `n` sizes to keep, at most `keep`, evenly spaced, first and
// last included.
std::vector<int> Spread(int n, int keep) {
  std::vector<int> picked;
  if (n <= keep) {
    for (int i = 0; i < n; ++i) picked.push_back(i);
    return picked;
  }
  for (int k = 0; k < keep; ++k) {
    picked.push_back(
        static_cast<int>(static_cast<int64_t>(k) * (n - 1) / (keep - 1)));
  }
  return picked;
}

std::string SweepTable(std::vector<const v1::SweepSummary*> sweeps) {
  std::sort(sweeps.begin(), sweeps.end(),
            [](const v1::SweepSummary* a, const v1::SweepSummary* b) {
              return a->started_unix_seconds() > b->started_unix_seconds();
            });
  std::string out =
      "<table class=\"sweeps\"><tr><th>sweep</th><th>started</th><th>"
      "trigger</th><th>status</th><th>ranks</th><th>steps</th><th>regressed"
      "</th></tr>";
  for (const v1::SweepSummary* s : sweeps) {
    absl::StrAppend(&out, "<tr><td>", EscapeHtml(s->sweep_id()), "</td><td>",
                    EscapeHtml(FormatUnixTime(s->started_unix_seconds())),
                    "</td><td>", EscapeHtml(s->trigger()), "</td><td>",
                    EscapeHtml(s->status()), "</td><td>", s->nranks(),
                    "</td><td>", s->steps(), "</td><td>", s->regressions(),
                    "</td></tr>");
  }
  return out + "</table>";
}

}  // namespace

std::string RenderTrends(const std::vector<v1::GetSweepResponse>& sweeps) {
  std::vector<TrendChart> charts;
  std::map<std::tuple<std::string, bool>, size_t> index;
  std::vector<const v1::SweepSummary*> summaries;
  for (const v1::GetSweepResponse& sweep : sweeps) {
    summaries.push_back(&sweep.sweep());
    for (const v1::StepResult& r : sweep.results()) {
      if (r.pairs_size() > 0) continue;
      auto [it, added] = index.try_emplace(
          std::tuple{r.step().op(), r.step().in_place()}, charts.size());
      if (added) {
        charts.push_back(TrendChart{r.step().op(), r.step().in_place(), {}});
      }
      charts[it->second].sizes[r.step().bytes()].push_back(
          TrendPoint{sweep.sweep().started_unix_seconds(), &r});
    }
  }
  double first = 0, last = 0;
  for (const v1::SweepSummary* s : summaries) {
    const double t = s->started_unix_seconds();
    if (first == 0 || t < first) first = t;
    last = std::max(last, t);
  }
  const double time_span = last - first;
  std::string out = absl::StrCat(
      "<section class=\"trends\"><h2>History trends</h2><p class=\"note\">",
      sweeps.size(),
      " sweeps; busbw of each message size over the sweeps' start times. "
      "Hover a point for the sweep's figures.</p>");
  const int drawn = std::min(static_cast<int>(charts.size()), kMaxTrendCharts);
  for (int c = 0; c < drawn; ++c) {
    const TrendChart& t = charts[c];
    const char* placement = t.in_place ? "in-place" : "out-of-place";
    ChartSpec chart;
    chart.id = absl::StrCat("trend-", t.op, "-", placement);
    chart.classes = {"trend"};
    chart.attributes = {{"op", t.op}, {"placement", placement}};
    chart.title = absl::StrCat(t.op, " ", placement, ": busbw over time");
    chart.x_label = "sweep start (UTC)";
    chart.x_from_zero = false;
    // Whole seconds at least, 5 labels of "MM-DD HH:MM" fit the axis; a
    // window of minutes is labelled to the second.
    chart.x_max_ticks = 5;
    chart.x_min_step = 1;
    chart.x_tick_label =
        time_span < 600 ? UnixClockTickLabel : UnixTimeTickLabel;
    chart.y_label = "busbw (GB/s)";
    std::vector<uint64_t> sizes;
    for (const auto& [bytes, points] : t.sizes) sizes.push_back(bytes);
    const std::vector<int> kept =
        Spread(static_cast<int>(sizes.size()), kMaxTrendSeries);
    for (size_t k = 0; k < kept.size(); ++k) {
      const uint64_t bytes = sizes[kept[k]];
      std::vector<TrendPoint> points = t.sizes.at(bytes);
      std::sort(points.begin(), points.end(),
                [](const TrendPoint& a, const TrendPoint& b) {
                  return a.time < b.time;
                });
      ChartSeries series;
      series.name = core::HumanByteSize(bytes);
      series.css_class = absl::StrCat("size-", bytes);
      series.color = PaletteColor(static_cast<int>(k));
      series.marker = k % 20 < 10 ? Marker::kCircle : Marker::kSquare;
      series.dashed = k % 20 >= 10;
      for (const TrendPoint& p : points) {
        series.points.push_back(ChartPoint{
            p.time, p.step->busbw_bytes_per_second() / 1e9,
            absl::StrCat(FormatUnixTime(p.time), ": ", DescribeStep(*p.step)),
            p.step->regression()});
      }
      chart.series.push_back(std::move(series));
    }
    out += RenderLineChart(chart);
    if (kept.size() < sizes.size()) {
      absl::StrAppend(&out, "<p class=\"note\">", sizes.size() - kept.size(),
                      " of ", sizes.size(), " sizes of ", EscapeHtml(t.op), " ",
                      placement, " not drawn (at most ", kMaxTrendSeries,
                      " per chart); a report of one sweep (--sweep) has them "
                      "all</p>");
    }
  }
  if (static_cast<int>(charts.size()) > drawn) {
    absl::StrAppend(&out, "<p class=\"note\">", charts.size() - drawn,
                    " more trend charts not drawn (at most ", kMaxTrendCharts,
                    ")</p>");
  }
  absl::StrAppend(&out, "<h3>Sweeps drawn</h3>", SweepTable(summaries),
                  "</section>");
  return out;
}

}  // namespace fabricpulse::client::report
