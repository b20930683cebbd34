#include "daemon/core/straggler.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "absl/strings/str_format.h"

namespace fabricpulse::core {

std::string Straggler::Describe() const {
  return absl::StrFormat(
      "rank %d entered the collective last in %d of %d steps, on average "
      "%.3g ms after the median rank (%.0f%% of the step time)",
      rank, late_steps, steps, mean_lateness * 1e3, mean_fraction * 100);
}

std::optional<int> LateRank(const MergedStep& s,
                            const StragglerOptions& options) {
  if (!s.last_arrival_rank || !s.arrival_lateness_seconds ||
      s.time_seconds <= 0) {
    return std::nullopt;
  }
  const double lateness = *s.arrival_lateness_seconds;
  const double spread = s.arrival_spread_seconds.value_or(0);
  if (lateness < options.min_lateness_seconds ||
      lateness < options.spread_factor * spread ||
      lateness / s.time_seconds < options.min_fraction) {
    return std::nullopt;
  }
  return *s.last_arrival_rank;
}

double BinomialTail(int k, int trials, double p) {
  if (k <= 0) return 1;
  if (k > trials || p <= 0) return 0;
  if (p >= 1) return 1;
  double tail = 0;
  for (int i = k; i <= trials; ++i) {
    tail += std::exp(std::lgamma(trials + 1.0) - std::lgamma(i + 1.0) -
                     std::lgamma(trials - i + 1.0) + i * std::log(p) +
                     (trials - i) * std::log1p(-p));
  }
  return std::min(1.0, tail);
}

std::optional<Straggler> FindStraggler(const std::vector<MergedStep>& steps,
                                       const StragglerOptions& options) {
  struct Late {
    int steps = 0;
    double lateness = 0;
    double fraction = 0;
  };
  std::map<int, Late> by_rank;
  int considered = 0;
  int ranks = 2;  // the fewest a step with arrival times has
  for (const MergedStep& s : steps) {
    if (!s.last_arrival_rank || !s.arrival_lateness_seconds ||
        s.time_seconds <= 0) {
      continue;
    }
    considered++;
    ranks = std::max(ranks, s.arrival_ranks);
    const std::optional<int> rank = LateRank(s, options);
    if (!rank) continue;
    Late& late = by_rank[*rank];
    late.steps++;
    late.lateness += *s.arrival_lateness_seconds;
    late.fraction += *s.arrival_lateness_seconds / s.time_seconds;
  }
  if (considered < options.min_steps) return std::nullopt;
  for (const auto& [rank, late] : by_rank) {
    const double chance = std::min(
        1.0, ranks * BinomialTail(late.steps, considered, 1.0 / ranks));
    if (late.steps >= options.min_share * considered &&
        chance <= options.max_chance) {
      return Straggler{rank,
                       late.steps,
                       considered,
                       late.lateness / late.steps,
                       late.fraction / late.steps,
                       chance};
    }
  }
  return std::nullopt;
}

}  // namespace fabricpulse::core
