// Merging per-rank timings of one step into the collective's result.
#pragma once

#include <cstdint>
#include <vector>

#include "daemon/core/sweep_spec.h"

namespace fabricpulse::core {

struct RankStepTiming {
  int rank = 0;
  double mean_seconds = 0;
  double p50_seconds = 0;
  double p99_seconds = 0;
  int64_t wrong = 0;
};

struct MergedStep {
  Step step;
  // The collective ends when its last rank ends: the slowest rank's mean.
  double time_seconds = 0;
  double algbw = 0;  // bytes per second
  double busbw = 0;  // bytes per second
  int64_t wrong = 0;  // summed over ranks
  int slowest_rank = 0;
  double min_rank_time_seconds = 0;
  double max_rank_time_seconds = 0;
  double p50_seconds = 0;  // the slowest rank's
  double p99_seconds = 0;  // the largest over ranks
};

// Requires a non-empty `ranks`. algbw = bytes / time; busbw = algbw x the
// op's factor for `nranks`.
MergedStep MergeStep(const Step& step, const std::vector<RankStepTiming>& ranks,
                     int nranks);

}  // namespace fabricpulse::core
