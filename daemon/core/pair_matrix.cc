#include "daemon/core/pair_matrix.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

#include "daemon/core/op_traits.h"
#include "daemon/core/pair_schedule.h"
#include "daemon/core/regression.h"

namespace fabricpulse::core {
namespace {

// `rank`'s timing, or nullptr when it did not report.
const RankStepTiming* Find(const std::vector<RankStepTiming>& ranks, int rank) {
  for (const RankStepTiming& t : ranks) {
    if (t.rank == rank) return &t;
  }
  return nullptr;
}

}  // namespace

std::vector<PairMeasurement> MeasurePairs(
    const Step& step, const std::vector<RankStepTiming>& ranks, int nranks,
    const std::vector<RankLocation>& locations) {
  std::vector<PairMeasurement> out;
  if (step.op != Op::kPairwise) return out;
  const int known = static_cast<int>(locations.size());
  for (const auto& [a, b] : RoundPairs(step.round, nranks)) {
    const auto ta = Find(ranks, a);
    const auto tb = Find(ranks, b);
    if (!ta || !tb || a >= known || b >= known) continue;
    PairMeasurement pair;
    pair.rank_a = a;
    pair.rank_b = b;
    pair.path = ClassifyPath(locations[a], locations[b]);
    pair.bytes = step.bytes;
    pair.time_seconds = std::max(ta->mean_seconds, tb->mean_seconds);
    if (pair.time_seconds > 0) {
      pair.algbw = static_cast<double>(step.bytes) / pair.time_seconds;
      pair.busbw = pair.algbw * BusBandwidthFactor(Op::kPairwise, nranks);
    }
    pair.wrong = ta->wrong + tb->wrong;
    out.push_back(pair);
  }
  for (PairMeasurement& p : out) {
    p.round_load = static_cast<int>(std::count_if(
        out.begin(), out.end(),
        [&](const PairMeasurement& q) { return q.path == p.path; }));
  }
  return out;
}

void FlagSlowPairs(std::vector<PairMeasurement>& pairs) {
  using ClassKey = std::pair<uint64_t, PathClass>;
  using LoadKey = std::tuple<uint64_t, PathClass, int>;
  std::map<ClassKey, std::vector<double>> classes;
  std::map<LoadKey, std::vector<double>> loads;
  for (const PairMeasurement& p : pairs) {
    classes[{p.bytes, p.path}].push_back(p.busbw);
    loads[{p.bytes, p.path, p.round_load}].push_back(p.busbw);
  }
  for (PairMeasurement& p : pairs) {
    const std::vector<double>& same_load =
        loads[{p.bytes, p.path, p.round_load}];
    const std::vector<double>& same_class = classes[{p.bytes, p.path}];
    const std::vector<double>& peers =
        static_cast<int>(same_load.size()) >= kMinPairsToFlag ? same_load
                                                              : same_class;
    p.flagged = static_cast<int>(peers.size()) >= kMinPairsToFlag &&
                p.busbw < kPairFlagFraction * Median(peers);
  }
}

}  // namespace fabricpulse::core
