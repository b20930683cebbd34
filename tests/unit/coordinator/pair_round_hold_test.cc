#include "daemon/coordinator/pair_round_hold.h"

#include <vector>

#include "daemon/core/pair_schedule.h"
#include "gtest/gtest.h"

namespace fabricpulse::coordinator {
namespace {

core::MergedStep Merged(core::Op op, int index, int round) {
  core::MergedStep m;
  m.step.op = op;
  m.step.index = index;
  m.step.round = round;
  m.step.bytes = 1 << 20;
  return m;
}

v1::StepResult Result(int index) {
  v1::StepResult r;
  r.mutable_step()->set_index(index);
  return r;
}

// 4 ranks, one per node; rank 3 is slow in every pair.
std::vector<core::RankStepTiming> Timings(int round) {
  std::vector<core::RankStepTiming> out;
  for (int rank = 0; rank < 4; ++rank) {
    core::RankStepTiming t;
    t.rank = rank;
    t.mean_seconds = 0.001;
    out.push_back(t);
  }
  for (const auto& [a, b] : core::RoundPairs(round, 4)) {
    if (b == 3) out[a].mean_seconds = out[b].mean_seconds = 0.01;
  }
  return out;
}

std::vector<core::RankLocation> Nodes() {
  std::vector<core::RankLocation> out(4);
  for (int r = 0; r < 4; ++r) out[r].node = "n" + std::to_string(r);
  return out;
}

TEST(PairRoundHoldTest, OtherStepsPassAtOnce) {
  PairRoundHold hold(4, Nodes());
  auto out = hold.Take(Merged(core::Op::kAllReduce, 0, -1), Result(0), {});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].pairs_size(), 0);
}

TEST(PairRoundHoldTest, RoundsWaitForTheLastThenCarryFlaggedPairs) {
  PairRoundHold hold(4, Nodes());
  EXPECT_TRUE(
      hold.Take(Merged(core::Op::kPairwise, 0, 0), Result(0), Timings(0))
          .empty());
  EXPECT_TRUE(
      hold.Take(Merged(core::Op::kPairwise, 1, 1), Result(1), Timings(1))
          .empty());
  auto out =
      hold.Take(Merged(core::Op::kPairwise, 2, 2), Result(2), Timings(2));
  ASSERT_EQ(out.size(), 3u);
  int pairs = 0, flagged = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    EXPECT_EQ(out[i].step().index(), static_cast<int>(i));
    ASSERT_EQ(out[i].pairs_size(), 2);
    for (const v1::PairResult& p : out[i].pairs()) {
      pairs++;
      EXPECT_EQ(p.path(), "network");
      EXPECT_EQ(p.node_a(), "n" + std::to_string(p.rank_a()));
      EXPECT_EQ(p.flagged(), p.rank_b() == 3)
          << p.rank_a() << "-" << p.rank_b();
      if (p.flagged()) flagged++;
    }
  }
  EXPECT_EQ(pairs, 6);
  EXPECT_EQ(flagged, 3);
  // The next size starts afresh.
  EXPECT_TRUE(
      hold.Take(Merged(core::Op::kPairwise, 3, 0), Result(3), Timings(0))
          .empty());
}

}  // namespace
}  // namespace fabricpulse::coordinator
