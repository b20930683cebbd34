#include "daemon/core/step_merge.h"

#include <algorithm>
#include <utility>

#include "daemon/core/limits.h"
#include "daemon/core/moe_routing.h"

namespace fabricpulse::core {
namespace {

// The percentiles are the slowest rank's p50 and the largest p99, and only
// when every rank measured them: a mix would hide the unmeasured ranks.
void MergePercentiles(const std::vector<RankStepTiming>& ranks,
                      const RankStepTiming& slowest, MergedStep& merged) {
  double p99 = 0;
  for (const RankStepTiming& r : ranks) {
    if (!r.p50_seconds || !r.p99_seconds) return;
    p99 = std::max(p99, *r.p99_seconds);
  }
  merged.p50_seconds = slowest.p50_seconds;
  merged.p99_seconds = p99;
}

void MergeArrivals(const std::vector<RankStepTiming>& ranks,
                   MergedStep& merged) {
  std::vector<double> arrivals;
  const RankStepTiming* last = nullptr;
  for (const RankStepTiming& r : ranks) {
    if (!r.arrival_seconds) return;
    arrivals.push_back(*r.arrival_seconds);
    if (last == nullptr || *r.arrival_seconds > *last->arrival_seconds) {
      last = &r;
    }
  }
  if (last == nullptr) return;
  std::sort(arrivals.begin(), arrivals.end());
  // Nearest-rank median: with two ranks, the earlier one.
  const double median = arrivals[(arrivals.size() - 1) / 2];
  merged.last_arrival_rank = last->rank;
  merged.arrival_lateness_seconds = *last->arrival_seconds - median;
  // arrivals is sorted: the next to last is the latest of the others.
  merged.arrival_spread_seconds =
      arrivals.size() >= 2 ? arrivals[arrivals.size() - 2] - median : 0.0;
  merged.arrival_ranks = static_cast<int>(arrivals.size());
}

// Keeps the kMaxWrongRanksPerStep ranks with the most wrong elements: with
// thousands of ranks corrupting at once, listing them all would make one
// step's result megabytes.
void CapWrongRanks(std::map<int, int64_t>& wrong_by_rank) {
  if (wrong_by_rank.size() <= kMaxWrongRanksPerStep) return;
  std::vector<std::pair<int, int64_t>> ranked(wrong_by_rank.begin(),
                                              wrong_by_rank.end());
  std::stable_sort(
      ranked.begin(), ranked.end(),
      [](const auto& a, const auto& b) { return a.second > b.second; });
  ranked.resize(kMaxWrongRanksPerStep);
  wrong_by_rank = std::map<int, int64_t>(ranked.begin(), ranked.end());
}

}  // namespace

MergedStep MergeStep(const Step& step, const std::vector<RankStepTiming>& ranks,
                     int nranks) {
  MergedStep merged;
  merged.step = step;
  const RankStepTiming* slowest = &ranks.front();
  const RankStepTiming* fastest = &ranks.front();
  double sum = 0;
  for (const RankStepTiming& r : ranks) {
    sum += r.mean_seconds;
    if (r.mean_seconds > slowest->mean_seconds) slowest = &r;
    if (r.mean_seconds < fastest->mean_seconds) fastest = &r;
    merged.wrong += r.wrong;
    merged.checked = merged.checked && r.checked;
    if (r.iterations != 0 && merged.iterations != 0 &&
        r.iterations != merged.iterations) {
      merged.iterations_agree = false;
    }
    merged.iterations = std::max(merged.iterations, r.iterations);
    if (r.wrong != 0) merged.wrong_by_rank[r.rank] += r.wrong;
  }
  CapWrongRanks(merged.wrong_by_rank);
  merged.time_seconds = slowest->mean_seconds;
  merged.slowest_rank = slowest->rank;
  merged.max_rank_time_seconds = slowest->mean_seconds;
  merged.min_rank_time_seconds = fastest->mean_seconds;
  merged.mean_rank_time_seconds = sum / static_cast<double>(ranks.size());
  MergePercentiles(ranks, *slowest, merged);
  MergeArrivals(ranks, merged);
  if (merged.time_seconds > 0) {
    merged.algbw = static_cast<double>(step.bytes) / merged.time_seconds;
    merged.busbw =
        merged.algbw * (IsMoe(step.op)
                            ? MoeBusBandwidthFactor(step.moe, step.op, nranks)
                            : BusBandwidthFactor(step.op, nranks));
  }
  return merged;
}

}  // namespace fabricpulse::core
