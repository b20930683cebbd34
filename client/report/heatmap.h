// A rank x rank heatmap as inline SVG: one cell per measured pair (both
// (a, b) and (b, a), the pair being bidirectional), coloured by value from
// light (low) to dark (high), flagged cells outlined in red, unmeasured
// cells grey.
//
// Classes (the tests' contract): <svg class="heatmap" id="ID">; every
// measured cell is a <rect class="cell"> (plus "flagged") with data-a,
// data-b and data-value.
#pragma once

#include <string>
#include <vector>

namespace fabricpulse::client::report {

// Ranks beyond this are not drawn as a heatmap (kMaxHeatmapRanks^2 cells
// already make a 2 MB SVG); the caller lists the flagged pairs instead.
inline constexpr int kMaxHeatmapRanks = 128;

struct HeatmapCell {
  int rank_a = 0;  // 0 <= rank_a, rank_b < ranks
  int rank_b = 0;
  double value = 0;
  bool flagged = false;
  std::string tooltip;  // plain text
};

struct HeatmapSpec {
  std::string id;           // a token, unique in the page
  std::string title;        // plain text
  std::string value_label;  // "busbw (GB/s)"
  int ranks = 0;            // 1..kMaxHeatmapRanks
  std::vector<HeatmapCell> cells;
};

// The heatmap with a colour legend from the smallest to the largest value.
// Cells outside [0, ranks) are left out.
std::string RenderHeatmap(const HeatmapSpec& spec);

}  // namespace fabricpulse::client::report
