#include "daemon/coordinator/pair_round_hold.h"

#include <string>
#include <utility>

#include "daemon/core/pair_schedule.h"

namespace fabricpulse::coordinator {

PairRoundHold::PairRoundHold(int nranks,
                             std::vector<core::RankLocation> locations)
    : nranks_(nranks), locations_(std::move(locations)) {}

std::vector<v1::StepResult> PairRoundHold::Take(
    const core::MergedStep& merged, v1::StepResult result,
    const std::vector<core::RankStepTiming>& timings) {
  std::vector<v1::StepResult> ready;
  if (merged.step.op != core::Op::kPairwise) {
    ready.push_back(std::move(result));
    return ready;
  }
  for (const core::PairMeasurement& pair :
       core::MeasurePairs(merged.step, timings, nranks_, locations_)) {
    pairs_.push_back(pair);
    owner_.push_back(held_.size());
  }
  held_.push_back(std::move(result));
  if (merged.step.round < core::PairRounds(nranks_) - 1) return ready;
  core::FlagSlowPairs(pairs_);
  for (size_t i = 0; i < pairs_.size(); ++i) {
    *held_[owner_[i]].add_pairs() = PairToProto(pairs_[i], locations_);
  }
  ready.swap(held_);
  pairs_.clear();
  owner_.clear();
  return ready;
}

v1::PairResult PairToProto(const core::PairMeasurement& pair,
                           const std::vector<core::RankLocation>& locations) {
  v1::PairResult out;
  out.set_rank_a(pair.rank_a);
  out.set_rank_b(pair.rank_b);
  const int known = static_cast<int>(locations.size());
  if (pair.rank_a < known) out.set_node_a(locations[pair.rank_a].node);
  if (pair.rank_b < known) out.set_node_b(locations[pair.rank_b].node);
  out.set_path(std::string(core::PathClassName(pair.path)));
  out.set_time_seconds(pair.time_seconds);
  out.set_algbw_bytes_per_second(pair.algbw);
  out.set_busbw_bytes_per_second(pair.busbw);
  out.set_wrong(pair.wrong);
  out.set_flagged(pair.flagged);
  return out;
}

}  // namespace fabricpulse::coordinator
