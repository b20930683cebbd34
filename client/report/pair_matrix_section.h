// The pairwise matrix of one sweep: for each op and size whose steps carry
// pairs (StepResult.pairs, every round of the matrix), a rank x rank
// heatmap of busbw, flagged pairs outlined. Nothing for a sweep without
// pairs.
#pragma once

#include <string>

#include "absl/strings/string_view.h"
#include "fabricpulse/v1/coordinator.pb.h"

namespace fabricpulse::client::report {

// Heatmaps drawn per sweep at most; the sizes beyond are named in a note.
inline constexpr int kMaxHeatmapsPerSweep = 16;
// Flagged pairs listed at most for a matrix too large for a heatmap.
inline constexpr int kMaxListedPairs = 100;

// A <section class="pair-matrix"> with one <svg class="heatmap"
// id="PREFIX-pairs-OP-BYTES-PLACEMENT"> per (op, size, placement) in
// the order they first appear; empty when no step has pairs. A matrix of
// more ranks than kMaxHeatmapRanks is listed (its flagged pairs) instead.
std::string RenderPairMatrices(const v1::GetSweepResponse& sweep,
                               absl::string_view id_prefix);

}  // namespace fabricpulse::client::report
