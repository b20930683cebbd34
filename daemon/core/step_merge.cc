#include "daemon/core/step_merge.h"

#include <algorithm>

namespace fabricpulse::core {

MergedStep MergeStep(const Step& step, const std::vector<RankStepTiming>& ranks,
                     int nranks) {
  MergedStep merged;
  merged.step = step;
  const RankStepTiming* slowest = &ranks.front();
  const RankStepTiming* fastest = &ranks.front();
  for (const RankStepTiming& r : ranks) {
    if (r.mean_seconds > slowest->mean_seconds) slowest = &r;
    if (r.mean_seconds < fastest->mean_seconds) fastest = &r;
    merged.wrong += r.wrong;
    merged.p99_seconds = std::max(merged.p99_seconds, r.p99_seconds);
  }
  merged.time_seconds = slowest->mean_seconds;
  merged.slowest_rank = slowest->rank;
  merged.max_rank_time_seconds = slowest->mean_seconds;
  merged.min_rank_time_seconds = fastest->mean_seconds;
  merged.p50_seconds = slowest->p50_seconds;
  if (merged.time_seconds > 0) {
    merged.algbw = static_cast<double>(step.bytes) / merged.time_seconds;
    merged.busbw = merged.algbw * BusBandwidthFactor(step.op, nranks);
  }
  return merged;
}

}  // namespace fabricpulse::core
