#include "client/report/line_chart.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "client/report/html_escape.h"
#include "client/report/plot_scale.h"

namespace fabricpulse::client::report {
namespace {

// The chart's geometry, in SVG pixels.
constexpr double kWidth = 600;
constexpr double kPlotLeft = 70;
constexpr double kPlotRight = 420;
constexpr double kLegendLeft = 434;
constexpr double kPlotTop = 36;
constexpr double kPlotHeight = 240;
constexpr double kBottomMargin = 50;
constexpr double kLegendRow = 16;
constexpr int kMaxYTicks = 7;

constexpr const char* kPalette[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd",
                                    "#ff7f0e", "#8c564b", "#e377c2", "#17becf",
                                    "#7f7f7f", "#bcbd22"};

// A point's data coordinate for data-x / data-y: full precision, so a test
// can match it to the result it came from (15 digits: a Unix time to
// 10 us).
std::string DataValue(double v) { return absl::StrFormat("%.15g", v); }

struct Range {
  double min = std::numeric_limits<double>::infinity();
  double max = -std::numeric_limits<double>::infinity();
  bool empty() const { return min > max; }
  void Add(double v) {
    min = std::min(min, v);
    max = std::max(max, v);
  }
};

bool DrawableOn(ScaleKind kind, double v) {
  return std::isfinite(v) && (kind == ScaleKind::kLinear || v > 0);
}

std::string MarkerElement(const ChartSeries& s, const ChartPoint& p, double cx,
                          double cy) {
  const std::string cls = absl::StrCat("point ", p.marked ? "regression " : "",
                                       CssToken(s.css_class));
  const std::string data = absl::StrCat(" data-x=\"", DataValue(p.x),
                                        "\" data-y=\"", DataValue(p.y), "\"");
  const std::string title =
      absl::StrCat("<title>", EscapeHtml(p.tooltip), "</title>");
  std::string out;
  if (p.marked) {
    absl::StrAppend(&out, "<circle class=\"regression-ring\" cx=\"", Px(cx),
                    "\" cy=\"", Px(cy),
                    "\" r=\"7.5\" fill=\"none\" stroke=\"#d00\" "
                    "stroke-width=\"2\"/>");
  }
  if (s.marker == Marker::kSquare) {
    absl::StrAppend(
        &out, "<rect class=\"", cls, "\" x=\"", Px(cx - 3.5), "\" y=\"",
        Px(cy - 3.5), "\" width=\"7\" height=\"7\" fill=\"white\" stroke=\"",
        s.color, "\" stroke-width=\"1.5\"", data, ">", title, "</rect>");
  } else {
    absl::StrAppend(&out, "<circle class=\"", cls, "\" cx=\"", Px(cx),
                    "\" cy=\"", Px(cy), "\" r=\"3.5\" fill=\"", s.color, "\"",
                    data, ">", title, "</circle>");
  }
  return out;
}

std::string LegendEntry(const ChartSeries& s, int row) {
  const double y = kPlotTop + row * kLegendRow + 8;
  std::string out = absl::StrCat("<g class=\"legend-entry\">");
  if (s.band) {
    absl::StrAppend(&out, "<line x1=\"", Px(kLegendLeft), "\" y1=\"", Px(y),
                    "\" x2=\"", Px(kLegendLeft + 22), "\" y2=\"", Px(y),
                    "\" stroke=\"", s.color,
                    "\" stroke-opacity=\"0.25\" stroke-width=\"9\"/>");
  } else {
    absl::StrAppend(&out, "<line x1=\"", Px(kLegendLeft), "\" y1=\"", Px(y),
                    "\" x2=\"", Px(kLegendLeft + 22), "\" y2=\"", Px(y),
                    "\" stroke=\"", s.color, "\" stroke-width=\"1.5\"",
                    s.dashed ? " stroke-dasharray=\"5 3\"" : "", "/>");
    if (s.marker == Marker::kSquare) {
      absl::StrAppend(&out, "<rect x=\"", Px(kLegendLeft + 7.5), "\" y=\"",
                      Px(y - 3.5),
                      "\" width=\"7\" height=\"7\" fill=\"white\" stroke=\"",
                      s.color, "\" stroke-width=\"1.5\"/>");
    } else {
      absl::StrAppend(&out, "<circle cx=\"", Px(kLegendLeft + 11), "\" cy=\"",
                      Px(y), "\" r=\"3.5\" fill=\"", s.color, "\"/>");
    }
  }
  absl::StrAppend(&out, "<text x=\"", Px(kLegendLeft + 28), "\" y=\"",
                  Px(y + 4), "\">", EscapeHtml(s.name), "</text></g>");
  return out;
}

}  // namespace

const char* PaletteColor(int i) {
  constexpr int n = sizeof(kPalette) / sizeof(kPalette[0]);
  return kPalette[((i % n) + n) % n];
}

std::string RenderLineChart(const ChartSpec& spec) {
  Range xs, ys;
  int undrawable = 0;
  for (const ChartSeries& s : spec.series) {
    for (const ChartPoint& p : s.points) {
      if (!DrawableOn(spec.x_kind, p.x) || !DrawableOn(spec.y_kind, p.y)) {
        ++undrawable;
        continue;
      }
      xs.Add(p.x);
      ys.Add(p.y);
    }
  }
  const int legend_rows = static_cast<int>(spec.series.size());
  const double height = std::max(kPlotTop + kPlotHeight + kBottomMargin,
                                 kPlotTop + legend_rows * kLegendRow + 12);
  const double plot_bottom = kPlotTop + kPlotHeight;
  std::string classes = "chart";
  for (const std::string& c : spec.classes) {
    absl::StrAppend(&classes, " ", CssToken(c));
  }
  std::string attributes;
  for (const auto& [name, value] : spec.attributes) {
    absl::StrAppend(&attributes, " data-", CssToken(name), "=\"",
                    EscapeHtml(value), "\"");
  }
  std::string out = absl::StrCat(
      "<svg class=\"", classes, "\" id=\"", CssToken(spec.id), "\"", attributes,
      " width=\"", Px(kWidth), "\" height=\"", Px(height), "\" viewBox=\"0 0 ",
      Px(kWidth), " ", Px(height), "\" role=\"img\"><title>",
      EscapeHtml(spec.title), "</title>", "<text class=\"chart-title\" x=\"",
      Px(kPlotLeft), "\" y=\"20\">", EscapeHtml(spec.title), "</text>");
  if (xs.empty()) {
    absl::StrAppend(&out, "<text class=\"caption\" x=\"", Px(kPlotLeft),
                    "\" y=\"", Px(kPlotTop + 40),
                    "\">no drawable point</text></svg>");
    return out;
  }
  const Scale x = Scale::Fit(spec.x_kind, xs.min, xs.max, kPlotLeft, kPlotRight,
                             spec.x_from_zero, spec.x_min_step);
  const Scale y = Scale::Fit(spec.y_kind, ys.min, ys.max, plot_bottom, kPlotTop,
                             spec.y_from_zero);
  // Grid and ticks.
  absl::StrAppend(&out, "<g class=\"axis x-axis\">");
  for (double t : x.Ticks(spec.x_max_ticks, spec.x_min_step)) {
    const double px = x.Map(t);
    absl::StrAppend(&out, "<line class=\"grid\" x1=\"", Px(px), "\" y1=\"",
                    Px(kPlotTop), "\" x2=\"", Px(px), "\" y2=\"",
                    Px(plot_bottom), "\"/><text class=\"tick\" x=\"", Px(px),
                    "\" y=\"", Px(plot_bottom + 16),
                    "\" text-anchor=\"middle\">",
                    EscapeHtml(spec.x_tick_label(t)), "</text>");
  }
  absl::StrAppend(&out, "<text class=\"axis-label\" x=\"",
                  Px((kPlotLeft + kPlotRight) / 2), "\" y=\"",
                  Px(plot_bottom + 38), "\" text-anchor=\"middle\">",
                  EscapeHtml(spec.x_label), "</text></g>");
  absl::StrAppend(&out, "<g class=\"axis y-axis\">");
  for (double t : y.Ticks(kMaxYTicks)) {
    const double py = y.Map(t);
    absl::StrAppend(&out, "<line class=\"grid\" x1=\"", Px(kPlotLeft),
                    "\" y1=\"", Px(py), "\" x2=\"", Px(kPlotRight), "\" y2=\"",
                    Px(py), "\"/><text class=\"tick\" x=\"", Px(kPlotLeft - 6),
                    "\" y=\"", Px(py + 4), "\" text-anchor=\"end\">",
                    EscapeHtml(spec.y_tick_label(t)), "</text>");
  }
  absl::StrAppend(&out, "<text class=\"axis-label\" transform=\"translate(16,",
                  Px((kPlotTop + plot_bottom) / 2),
                  ") rotate(-90)\" text-anchor=\"middle\">",
                  EscapeHtml(spec.y_label), "</text></g>");
  absl::StrAppend(&out, "<rect class=\"frame\" x=\"", Px(kPlotLeft), "\" y=\"",
                  Px(kPlotTop), "\" width=\"", Px(kPlotRight - kPlotLeft),
                  "\" height=\"", Px(kPlotHeight), "\" fill=\"none\"/>");
  // Bands first, under the lines; then lines; then points on top.
  for (int pass = 0; pass < 2; ++pass) {
    for (const ChartSeries& s : spec.series) {
      if (s.band != (pass == 0)) continue;
      std::string d;
      std::string points;
      for (const ChartPoint& p : s.points) {
        if (!x.Drawable(p.x) || !y.Drawable(p.y)) continue;
        const double cx = x.Map(p.x), cy = y.Map(p.y);
        absl::StrAppend(&d, d.empty() ? "M" : " L", Px(cx), " ", Px(cy));
        if (!s.band) points += MarkerElement(s, p, cx, cy);
      }
      if (d.empty()) continue;
      if (s.band) {
        absl::StrAppend(&out, "<path class=\"band ", CssToken(s.css_class),
                        "\" d=\"", d, "\" fill=\"none\" stroke=\"", s.color,
                        "\" stroke-opacity=\"0.22\" stroke-width=\"12\" "
                        "stroke-linecap=\"round\" stroke-linejoin=\"round\">"
                        "<title>",
                        EscapeHtml(s.tooltip.empty() ? s.name : s.tooltip),
                        "</title></path>");
        continue;
      }
      absl::StrAppend(
          &out, "<path class=\"line ", CssToken(s.css_class), "\" d=\"", d,
          "\" fill=\"none\" stroke=\"", s.color, "\" stroke-width=\"1.5\"",
          s.dashed ? " stroke-dasharray=\"5 3\"" : "", "/>", points);
    }
  }
  for (int i = 0; i < legend_rows; ++i) {
    out += LegendEntry(spec.series[i], i);
  }
  if (undrawable > 0) {
    absl::StrAppend(&out, "<text class=\"caption\" x=\"", Px(kPlotLeft),
                    "\" y=\"", Px(height - 4), "\">", undrawable,
                    undrawable == 1 ? " point" : " points",
                    " not drawable (not finite, or not above 0 on a log "
                    "axis)</text>");
  }
  out += "</svg>";
  return out;
}

}  // namespace fabricpulse::client::report
