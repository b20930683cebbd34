// History trends of one plan: busbw over time for each (op, placement),
// one line per message size, from the plan's sweeps in the window.
#pragma once

#include <string>
#include <vector>

#include "fabricpulse/v1/coordinator.pb.h"

namespace fabricpulse::client::report {

// Sizes drawn per trend chart at most: beyond it, evenly spaced sizes
// (always the smallest and the largest) are kept and the rest named in a
// note.
inline constexpr int kMaxTrendSeries = 16;
// Trend charts at most ((op, placement) pairs); the rest are named.
inline constexpr int kMaxTrendCharts = 24;

// A <section class="trends"> with one <svg class="chart trend"
// id="trend-OP-PLACEMENT" data-op="OP"> per (op, placement) found in
// `sweeps` (any order), one point per sweep and size, and a table of the
// sweeps drawn. Steps with pairs (the pairwise matrix) are left out.
std::string RenderTrends(const std::vector<v1::GetSweepResponse>& sweeps);

}  // namespace fabricpulse::client::report
