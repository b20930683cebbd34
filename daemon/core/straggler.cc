#include "daemon/core/straggler.h"

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
  if (lateness < options.min_lateness_seconds ||
      lateness / s.time_seconds < options.min_fraction) {
    return std::nullopt;
  }
  return *s.last_arrival_rank;
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
  for (const MergedStep& s : steps) {
    if (!s.last_arrival_rank || !s.arrival_lateness_seconds ||
        s.time_seconds <= 0) {
      continue;
    }
    considered++;
    const std::optional<int> rank = LateRank(s, options);
    if (!rank) continue;
    Late& late = by_rank[*rank];
    late.steps++;
    late.lateness += *s.arrival_lateness_seconds;
    late.fraction += *s.arrival_lateness_seconds / s.time_seconds;
  }
  if (considered < options.min_steps) return std::nullopt;
  for (const auto& [rank, late] : by_rank) {
    if (late.steps >= options.min_share * considered) {
      return Straggler{rank, late.steps, considered, late.lateness / late.steps,
                       late.fraction / late.steps};
    }
  }
  return std::nullopt;
}

}  // namespace fabricpulse::core
