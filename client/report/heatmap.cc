#include "client/report/heatmap.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "client/report/html_escape.h"
#include "client/report/plot_scale.h"

namespace fabricpulse::client::report {
namespace {

constexpr double kLeft = 56;
constexpr double kTop = 40;
constexpr double kGridPixels = 480;  // the matrix's side, at most
constexpr double kMaxCell = 36;

// From #f7fbff (t = 0) to #08306b (t = 1), a sequential blue ramp.
std::string RampColor(double t) {
  t = std::clamp(t, 0.0, 1.0);
  auto mix = [t](int from, int to) {
    return static_cast<int>(std::lround(from + (to - from) * t));
  };
  return absl::StrFormat("#%02x%02x%02x", mix(0xf7, 0x08), mix(0xfb, 0x30),
                         mix(0xff, 0x6b));
}

}  // namespace

std::string RenderHeatmap(const HeatmapSpec& spec) {
  const int n = std::clamp(spec.ranks, 1, kMaxHeatmapRanks);
  const double cell = std::min(kMaxCell, kGridPixels / n);
  const double side = cell * n;
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  auto drawn = [n](const HeatmapCell& c) {
    return c.rank_a >= 0 && c.rank_b >= 0 && c.rank_a < n && c.rank_b < n;
  };
  for (const HeatmapCell& c : spec.cells) {
    if (!drawn(c) || !std::isfinite(c.value)) continue;
    lo = std::min(lo, c.value);
    hi = std::max(hi, c.value);
  }
  const double width = kLeft + side + 150;
  const double height = kTop + side + 30;
  std::string out = absl::StrCat(
      "<svg class=\"heatmap\" id=\"", CssToken(spec.id), "\" width=\"",
      Px(width), "\" height=\"", Px(height), "\" viewBox=\"0 0 ", Px(width),
      " ", Px(height), "\" role=\"img\"><title>", EscapeHtml(spec.title),
      "</title><text class=\"chart-title\" x=\"", Px(kLeft), "\" y=\"18\">",
      EscapeHtml(spec.title), "</text>");
  // Unmeasured background, then the rank labels (every k-th when dense).
  absl::StrAppend(&out, "<rect class=\"unmeasured\" x=\"", Px(kLeft), "\" y=\"",
                  Px(kTop), "\" width=\"", Px(side), "\" height=\"", Px(side),
                  "\" fill=\"#e4e4e4\"/>");
  const int label_every = std::max(1, static_cast<int>(std::ceil(14 / cell)));
  for (int r = 0; r < n; r += label_every) {
    const double mid = r * cell + cell / 2;
    absl::StrAppend(&out, "<text class=\"tick\" x=\"", Px(kLeft + mid),
                    "\" y=\"", Px(kTop - 4), "\" text-anchor=\"middle\">", r,
                    "</text><text class=\"tick\" x=\"", Px(kLeft - 5),
                    "\" y=\"", Px(kTop + mid + 4), "\" text-anchor=\"end\">", r,
                    "</text>");
  }
  std::string flagged;  // drawn last, on top of the cells around them
  for (const HeatmapCell& c : spec.cells) {
    if (!drawn(c)) continue;
    const double t = hi > lo ? (c.value - lo) / (hi - lo) : 1.0;
    const std::string color =
        std::isfinite(c.value) ? RampColor(t) : std::string("#e4e4e4");
    for (const auto& [row, col] :
         {std::pair{c.rank_a, c.rank_b}, std::pair{c.rank_b, c.rank_a}}) {
      const std::string rect = absl::StrCat(
          "<rect class=\"cell", c.flagged ? " flagged" : "", "\" x=\"",
          Px(kLeft + col * cell), "\" y=\"", Px(kTop + row * cell),
          "\" width=\"", Px(cell), "\" height=\"", Px(cell), "\" fill=\"",
          color, "\"", c.flagged ? " stroke=\"#d00\" stroke-width=\"2.5\"" : "",
          " data-a=\"", row, "\" data-b=\"", col, "\" data-value=\"",
          absl::StrFormat("%.10g", c.value), "\"><title>",
          EscapeHtml(c.tooltip), "</title></rect>");
      (c.flagged ? flagged : out) += rect;
      if (row == col) break;
    }
  }
  out += flagged;
  // The colour legend: a ramp of 5 steps labelled with its ends.
  const double lx = kLeft + side + 24;
  absl::StrAppend(&out, "<text class=\"tick\" x=\"", Px(lx), "\" y=\"",
                  Px(kTop + 4), "\">", EscapeHtml(spec.value_label), "</text>");
  if (lo <= hi) {
    for (int i = 0; i < 5; ++i) {
      absl::StrAppend(&out, "<rect x=\"", Px(lx), "\" y=\"",
                      Px(kTop + 12 + i * 18),
                      "\" width=\"16\" height=\"18\" "
                      "fill=\"",
                      RampColor(1 - i / 4.0), "\"/>");
    }
    absl::StrAppend(&out, "<text class=\"tick\" x=\"", Px(lx + 22), "\" y=\"",
                    Px(kTop + 24), "\">", EscapeHtml(NumberTickLabel(hi)),
                    "</text><text class=\"tick\" x=\"", Px(lx + 22), "\" y=\"",
                    Px(kTop + 12 + 5 * 18 - 4), "\">",
                    EscapeHtml(NumberTickLabel(lo)), "</text>");
  }
  absl::StrAppend(&out, "<rect x=\"", Px(lx), "\" y=\"", Px(kTop + 120),
                  "\" width=\"16\" height=\"16\" fill=\"#e4e4e4\"/>",
                  "<text class=\"tick\" x=\"", Px(lx + 22), "\" y=\"",
                  Px(kTop + 132), "\">not measured</text>", "<rect x=\"",
                  Px(lx), "\" y=\"", Px(kTop + 144),
                  "\" width=\"16\" height=\"16\" fill=\"none\" "
                  "stroke=\"#d00\" stroke-width=\"2.5\"/>",
                  "<text class=\"tick\" x=\"", Px(lx + 22), "\" y=\"",
                  Px(kTop + 156), "\">flagged</text></svg>");
  return out;
}

}  // namespace fabricpulse::client::report
