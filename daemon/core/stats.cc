#include "daemon/core/stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace fabricpulse::core {
namespace {

double Percentile(const std::vector<double>& sorted, double p) {
  // Nearest rank: the smallest sample with at least p% of samples <= it.
  size_t rank = static_cast<size_t>(std::ceil(p / 100.0 * sorted.size()));
  if (rank < 1) rank = 1;
  return sorted[std::min(rank, sorted.size()) - 1];
}

}  // namespace

IterationStats ComputeStats(std::vector<double> samples) {
  IterationStats stats;
  if (samples.empty()) return stats;
  std::sort(samples.begin(), samples.end());
  stats.min = samples.front();
  stats.max = samples.back();
  stats.mean =
      std::accumulate(samples.begin(), samples.end(), 0.0) / samples.size();
  stats.p50 = Percentile(samples, 50);
  stats.p99 = Percentile(samples, 99);
  return stats;
}

}  // namespace fabricpulse::core
