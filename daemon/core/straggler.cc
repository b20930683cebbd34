#include "daemon/core/straggler.h"

#include <map>

#include "absl/strings/str_format.h"

namespace fabricpulse::core {

std::string Straggler::Describe() const {
  return absl::StrFormat(
      "rank %d was the slowest in %d of %d steps, %.0f%% slower than the "
      "fastest rank on average",
      rank, slowest_steps, steps, mean_gap * 100);
}

std::optional<Straggler> FindStraggler(const std::vector<MergedStep>& steps,
                                       double min_share, double min_gap) {
  std::map<int, std::pair<int, double>> by_rank;  // count, summed gap
  int considered = 0;
  for (const MergedStep& s : steps) {
    if (s.min_rank_time_seconds <= 0 ||
        s.max_rank_time_seconds <= s.min_rank_time_seconds) {
      continue;
    }
    considered++;
    auto& entry = by_rank[s.slowest_rank];
    entry.first++;
    entry.second += (s.max_rank_time_seconds - s.min_rank_time_seconds) /
                    s.min_rank_time_seconds;
  }
  if (considered < 4) return std::nullopt;
  for (const auto& [rank, entry] : by_rank) {
    const double share = static_cast<double>(entry.first) / considered;
    const double gap = entry.second / entry.first;
    if (share >= min_share && gap >= min_gap) {
      return Straggler{rank, entry.first, considered, gap};
    }
  }
  return std::nullopt;
}

}  // namespace fabricpulse::core
