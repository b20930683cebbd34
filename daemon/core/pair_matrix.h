// The pairwise matrix from its steps: each round's pairs timed, labelled by
// path, and the pairs far below their path class flagged.
#pragma once

#include <cstdint>
#include <vector>

#include "daemon/core/path_class.h"
#include "daemon/core/step_merge.h"
#include "daemon/core/sweep_spec.h"

namespace fabricpulse::core {

// A pair is flagged when its busbw is below this share of the median busbw
// of the pairs of its path class at the same size in the same sweep...
inline constexpr double kPairFlagFraction = 0.5;
// ...and the class has at least this many pairs (with fewer, a median does
// not say which pair is the odd one). Pairs are compared with the pairs of
// their class that ran under the same round load (as many pairs of the
// class at once: a round with four cross-node pairs shares the network
// four ways, one with two, two ways), when at least kMinPairsToFlag such
// pairs exist; else with the whole class at that size.
inline constexpr int kMinPairsToFlag = 3;

struct PairMeasurement {
  int rank_a = 0;  // rank_a < rank_b
  int rank_b = 0;
  PathClass path = PathClass::kNetwork;
  uint64_t bytes = 0;
  // The slower of the two ranks' mean times; bandwidths per direction, as
  // sendrecv (busbw factor 1).
  double time_seconds = 0;
  double algbw = 0;
  double busbw = 0;
  int64_t wrong = 0;  // both ranks' wrong elements
  // Pairs of this path class measured at once in this pair's round (this
  // one included).
  int round_load = 1;
  bool flagged = false;
};

// The pairs of one pairwise step (op kPairwise, its round) from its ranks'
// timings; `locations` holds every rank's place (index = rank). A pair with
// a rank that did not report, or beyond `locations`, is left out.
std::vector<PairMeasurement> MeasurePairs(
    const Step& step, const std::vector<RankStepTiming>& ranks, int nranks,
    const std::vector<RankLocation>& locations);

// Sets `flagged` on every pair whose busbw is below kPairFlagFraction x the
// median busbw of the pairs with its size, path class and round load (or,
// with fewer than kMinPairsToFlag of those, its size and path class), for
// groups of at least kMinPairsToFlag pairs; clears it on the others.
void FlagSlowPairs(std::vector<PairMeasurement>& pairs);

}  // namespace fabricpulse::core
