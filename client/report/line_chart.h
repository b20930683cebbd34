// A line chart as inline SVG: series of points joined by lines over two
// scales, with axes, ticks, a legend and a <title> tooltip per point (the
// browser shows it on hover; no script).
//
// The SVG's classes are the report's contract with its tests: the chart
// is <svg class="chart CLASSES" id="ID" data-...>; every point is one element
// of class "point" (plus "regression" when marked), carrying data-x and data-y;
// a band (baseline) is one <path class="band">; a series' line is a <path
// class="line SERIES-CLASS">.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "client/report/plot_scale.h"

namespace fabricpulse::client::report {

enum class Marker { kCircle, kSquare };

struct ChartPoint {
  double x = 0;
  double y = 0;
  std::string tooltip;  // plain text (escaped when written)
  bool marked = false;  // drawn with a red ring (a regression)
};

struct ChartSeries {
  std::string name;       // legend text (escaped when written)
  std::string tooltip;    // a band's hover text; empty: the name
  std::string css_class;  // a token (CssToken) added to its elements
  std::string color;      // a CSS colour the program chose ("#1f77b4")
  Marker marker = Marker::kCircle;
  bool dashed = false;
  // A band: drawn as a wide translucent stroke through the points, with no
  // point elements (the baseline).
  bool band = false;
  std::vector<ChartPoint> points;  // joined in this order
};

struct ChartSpec {
  std::string id;  // made a token (CssToken); unique in the page
  // Classes after "chart", each made a token.
  std::vector<std::string> classes;
  // data-NAME="VALUE" attributes of the <svg>: NAME made a token, VALUE
  // escaped (e.g. data-op).
  std::vector<std::pair<std::string, std::string>> attributes;
  std::string title;  // plain text
  std::string x_label;
  std::string y_label;
  ScaleKind x_kind = ScaleKind::kLinear;
  ScaleKind y_kind = ScaleKind::kLinear;
  // Whether a linear axis starts at 0 (bandwidth) or at the data (times).
  bool x_from_zero = true;
  bool y_from_zero = true;
  // Ticks on the x axis at most, and the least step between two (linear).
  int x_max_ticks = 9;
  double x_min_step = 0;
  std::function<std::string(double)> x_tick_label = NumberTickLabel;
  std::function<std::string(double)> y_tick_label = NumberTickLabel;
  std::vector<ChartSeries> series;
};

// The chart as an <svg> element. Points a scale cannot draw (non-finite,
// or <= 0 on a log axis) are left out, and counted in the chart's caption
// ("1 point not drawable on a log axis"). A chart without one drawable
// point says so in its body instead of drawing axes.
std::string RenderLineChart(const ChartSpec& spec);

// The i-th colour of the report's palette (wraps around).
const char* PaletteColor(int i);

}  // namespace fabricpulse::client::report
