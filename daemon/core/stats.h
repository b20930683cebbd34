// Per-iteration statistics.
#pragma once

#include <vector>

namespace fabricpulse::core {

struct IterationStats {
  double mean = 0;
  double min = 0;
  double max = 0;
  double p50 = 0;
  double p99 = 0;
};

// Nearest-rank percentiles over the samples (seconds or any unit). All zero
// for an empty input.
IterationStats ComputeStats(std::vector<double> samples);

}  // namespace fabricpulse::core
