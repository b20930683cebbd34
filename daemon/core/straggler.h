// The straggler signal: a rank that is consistently the slowest of a sweep,
// by a margin (slow, not hung).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "daemon/core/step_merge.h"

namespace fabricpulse::core {

struct Straggler {
  int rank = -1;
  int slowest_steps = 0;  // steps in which it was the slowest
  int steps = 0;          // steps considered
  double mean_gap = 0;    // mean (slowest - fastest) / fastest over those
  std::string Describe() const;  // "rank 3 was the slowest in 18 of 20 ..."
};

// A rank that was the slowest in at least `min_share` of the steps (with
// at least 4 steps), being on average at least `min_gap` slower than the
// fastest rank in them. Steps with a single rank or a zero time are
// ignored.
std::optional<Straggler> FindStraggler(const std::vector<MergedStep>& steps,
                                       double min_share = 0.75,
                                       double min_gap = 0.10);

}  // namespace fabricpulse::core
