#include "daemon/core/step_merge.h"

#include <map>
#include <vector>

#include "daemon/core/limits.h"
#include "gtest/gtest.h"

namespace fabricpulse::core {
namespace {
namespace FP_UNITY_ID {

constexpr uint64_t kMiB = 1 << 20;

Step MakeStep(Op op, uint64_t bytes) {
  Step step;
  step.index = 7;
  step.op = op;
  step.bytes = bytes;
  step.count = bytes / 4;
  step.dtype = DType::kFloat;
  return step;
}

RankStepTiming Timing(int rank, double mean, double p50 = 0, double p99 = 0,
                      int64_t wrong = 0) {
  RankStepTiming t;
  t.rank = rank;
  t.mean_seconds = mean;
  t.p50_seconds = p50;
  t.p99_seconds = p99;
  t.wrong = wrong;
  return t;
}

TEST(MergeStepTest, OneMebibyteInHundredMicroseconds) {
  // 1048576 B / 100e-6 s = 10485760000 B/s; all_reduce on 2 ranks has
  // busbw factor 2(n-1)/n = 1, so busbw = algbw.
  const Step step = MakeStep(Op::kAllReduce, kMiB);
  MergedStep merged =
      MergeStep(step, {Timing(0, 100e-6), Timing(1, 100e-6)}, 2);
  EXPECT_DOUBLE_EQ(merged.time_seconds, 100e-6);
  EXPECT_DOUBLE_EQ(merged.algbw, 10485760000.0);
  EXPECT_DOUBLE_EQ(merged.busbw, 10485760000.0);
  EXPECT_EQ(merged.step.index, 7);
  EXPECT_EQ(merged.step.bytes, kMiB);
  EXPECT_EQ(merged.step.op, Op::kAllReduce);
}

TEST(MergeStepTest, BusBandwidthUsesTheOpFactor) {
  // 1 MiB in 100 us on 4 ranks.
  const std::vector<RankStepTiming> ranks = {
      Timing(0, 100e-6), Timing(1, 100e-6), Timing(2, 100e-6),
      Timing(3, 100e-6)};
  struct Case {
    Op op;
    double busbw;
  };
  const Case kCases[] = {
      {Op::kAllReduce, 15728640000.0},     // x 1.5
      {Op::kAllGather, 7864320000.0},      // x 0.75
      {Op::kReduceScatter, 7864320000.0},  // x 0.75
      {Op::kAllToAll, 7864320000.0},       // x 0.75
      {Op::kGather, 7864320000.0},         // x 0.75
      {Op::kScatter, 7864320000.0},        // x 0.75
      {Op::kBroadcast, 10485760000.0},     // x 1
      {Op::kReduce, 10485760000.0},        // x 1
      {Op::kSendRecv, 10485760000.0},      // x 1
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(OpName(c.op));
    MergedStep merged = MergeStep(MakeStep(c.op, kMiB), ranks, 4);
    EXPECT_DOUBLE_EQ(merged.algbw, 10485760000.0);
    EXPECT_DOUBLE_EQ(merged.busbw, c.busbw);
  }
}

TEST(MergeStepTest, SlowestRankSetsTheTime) {
  // Ranks listed out of order: the result names the rank, not the position.
  const std::vector<RankStepTiming> ranks = {
      Timing(2, 200e-6, 190e-6, 400e-6, 1),
      Timing(0, 100e-6, 95e-6, 900e-6, 0),
      Timing(3, 400e-6, 350e-6, 500e-6, 2),
      Timing(1, 150e-6, 140e-6, 160e-6, 0),
  };
  MergedStep merged = MergeStep(MakeStep(Op::kAllReduce, kMiB), ranks, 4);
  EXPECT_EQ(merged.slowest_rank, 3);
  EXPECT_DOUBLE_EQ(merged.time_seconds, 400e-6);
  EXPECT_DOUBLE_EQ(merged.max_rank_time_seconds, 400e-6);
  EXPECT_DOUBLE_EQ(merged.min_rank_time_seconds, 100e-6);
  // nccl-tests' -a 1: (200 + 100 + 400 + 150) / 4 us; the bandwidths stay
  // the slowest rank's.
  EXPECT_DOUBLE_EQ(merged.mean_rank_time_seconds, 212.5e-6);
  // p50 is the slowest rank's; p99 the largest over ranks (rank 0's).
  EXPECT_DOUBLE_EQ(merged.p50_seconds.value(), 350e-6);
  EXPECT_DOUBLE_EQ(merged.p99_seconds.value(), 900e-6);
  EXPECT_EQ(merged.wrong, 3);
  // The sum stays, and each rank's count is kept: ranks 2 and 3 corrupted.
  EXPECT_EQ(merged.wrong_by_rank, (std::map<int, int64_t>{{2, 1}, {3, 2}}));
  // 1 MiB / 400 us = 2621440000 B/s; x 1.5 = 3932160000 B/s.
  EXPECT_DOUBLE_EQ(merged.algbw, 2621440000.0);
  EXPECT_DOUBLE_EQ(merged.busbw, 3932160000.0);
}

TEST(MergeStepTest, SlowestRankFirstInList) {
  MergedStep merged = MergeStep(MakeStep(Op::kBroadcast, 1000),
                                {Timing(5, 2.0), Timing(4, 1.0)}, 6);
  EXPECT_EQ(merged.slowest_rank, 5);
  EXPECT_DOUBLE_EQ(merged.min_rank_time_seconds, 1.0);
  EXPECT_DOUBLE_EQ(merged.max_rank_time_seconds, 2.0);
  EXPECT_DOUBLE_EQ(merged.algbw, 500.0);
  EXPECT_DOUBLE_EQ(merged.busbw, 500.0);
}

TEST(MergeStepTest, SingleRank) {
  MergedStep merged = MergeStep(MakeStep(Op::kAllReduce, 4096),
                                {Timing(0, 1e-3, 0.9e-3, 2e-3, 5)}, 1);
  EXPECT_EQ(merged.slowest_rank, 0);
  EXPECT_DOUBLE_EQ(merged.time_seconds, 1e-3);
  EXPECT_DOUBLE_EQ(merged.min_rank_time_seconds, 1e-3);
  EXPECT_DOUBLE_EQ(merged.max_rank_time_seconds, 1e-3);
  EXPECT_DOUBLE_EQ(merged.mean_rank_time_seconds, 1e-3);
  EXPECT_DOUBLE_EQ(merged.p50_seconds.value(), 0.9e-3);
  EXPECT_DOUBLE_EQ(merged.p99_seconds.value(), 2e-3);
  EXPECT_EQ(merged.wrong, 5);
  EXPECT_DOUBLE_EQ(merged.algbw, 4096000.0);
  // all_reduce on one rank moves nothing over the bus: 2(1-1)/1 = 0.
  EXPECT_DOUBLE_EQ(merged.busbw, 0.0);
}

TEST(MergeStepTest, PercentilesAbsentWhenAnyRankDidNotMeasureThem) {
  RankStepTiming unmeasured;
  unmeasured.rank = 1;
  unmeasured.mean_seconds = 2e-3;
  MergedStep merged =
      MergeStep(MakeStep(Op::kAllReduce, kMiB),
                {Timing(0, 1e-3, 0.9e-3, 1.5e-3), unmeasured}, 2);
  EXPECT_FALSE(merged.p50_seconds.has_value());
  EXPECT_FALSE(merged.p99_seconds.has_value());
  EXPECT_DOUBLE_EQ(merged.time_seconds, 2e-3);
}

TEST(MergeStepTest, CleanStepHasNoPerRankWrongCounts) {
  MergedStep merged = MergeStep(MakeStep(Op::kAllReduce, kMiB),
                                {Timing(0, 1e-3), Timing(1, 1e-3)}, 2);
  EXPECT_EQ(merged.wrong, 0);
  EXPECT_TRUE(merged.wrong_by_rank.empty());
}

TEST(MergeStepTest, LastArrivalIsNamedWithItsLatenessOverTheMedian) {
  std::vector<RankStepTiming> ranks = {Timing(0, 6e-3), Timing(1, 6e-3),
                                       Timing(2, 6e-3), Timing(3, 1e-3)};
  ranks[0].arrival_seconds = 0.010;
  ranks[1].arrival_seconds = 0.011;
  ranks[2].arrival_seconds = 0.012;
  ranks[3].arrival_seconds = 0.015;
  MergedStep merged = MergeStep(MakeStep(Op::kAllReduce, kMiB), ranks, 4);
  ASSERT_TRUE(merged.last_arrival_rank.has_value());
  EXPECT_EQ(*merged.last_arrival_rank, 3);
  // Nearest-rank median of {10, 11, 12, 15} ms is 11 ms.
  EXPECT_NEAR(merged.arrival_lateness_seconds.value(), 0.004, 1e-12);
  // The late rank waited least: the old "slowest rank" points elsewhere.
  EXPECT_NE(merged.slowest_rank, 3);
}

TEST(MergeStepTest, NoArrivalWhenARankDidNotReportOne) {
  std::vector<RankStepTiming> ranks = {Timing(0, 1e-3), Timing(1, 1e-3)};
  ranks[0].arrival_seconds = 0.5;
  MergedStep merged = MergeStep(MakeStep(Op::kAllReduce, kMiB), ranks, 2);
  EXPECT_FALSE(merged.last_arrival_rank.has_value());
  EXPECT_FALSE(merged.arrival_lateness_seconds.has_value());
}

TEST(MergeStepTest, ZeroTimeGivesZeroBandwidthNotInfinity) {
  MergedStep merged = MergeStep(MakeStep(Op::kAllReduce, kMiB),
                                {Timing(0, 0), Timing(1, 0)}, 2);
  EXPECT_EQ(merged.time_seconds, 0);
  EXPECT_EQ(merged.algbw, 0);
  EXPECT_EQ(merged.busbw, 0);
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::core

namespace fabricpulse::core {
namespace {
namespace FP_UNITY_ID {

TEST(MergeStepTest, ListsTheRanksWithTheMostWrongElementsUpToTheBound) {
  const Step step = MakeStep(Op::kAllReduce, kMiB);
  std::vector<RankStepTiming> ranks;
  const int nranks = 1000;
  for (int r = 0; r < nranks; ++r) {
    ranks.push_back(Timing(r, 1e-3, 0, 0, /*wrong=*/r % 100 + 1));
  }
  MergedStep merged = MergeStep(step, ranks, nranks);
  ASSERT_EQ(merged.wrong_by_rank.size(), kMaxWrongRanksPerStep);
  int64_t total = 0;
  for (const RankStepTiming& r : ranks) total += r.wrong;
  EXPECT_EQ(merged.wrong, total);  // every rank still counts
  for (const auto& [rank, wrong] : merged.wrong_by_rank) {
    EXPECT_GE(wrong, 90) << rank;  // only the worst are listed
  }
}

TEST(MergeStepTest, FewWrongRanksAreAllListed) {
  const Step step = MakeStep(Op::kAllReduce, kMiB);
  MergedStep merged = MergeStep(
      step,
      {Timing(0, 1e-3, 0, 0, 3), Timing(1, 1e-3), Timing(2, 1e-3, 0, 0, 1)}, 3);
  EXPECT_EQ(merged.wrong_by_rank, (std::map<int, int64_t>{{0, 3}, {2, 1}}));
}

TEST(MergeStepTest, IterationsAreTheCountEveryRankRan) {
  const Step step = MakeStep(Op::kAllReduce, kMiB);
  std::vector<RankStepTiming> ranks = {Timing(0, 1e-3), Timing(1, 2e-3),
                                       Timing(2, 1e-3)};
  for (RankStepTiming& r : ranks) r.iterations = 37;
  EXPECT_EQ(MergeStep(step, ranks, 3).iterations, 37);
  EXPECT_TRUE(MergeStep(step, ranks, 3).iterations_agree);
  // A rank that does not say (0) is left out.
  ranks[2].iterations = 0;
  EXPECT_TRUE(MergeStep(step, ranks, 3).iterations_agree);
  // Ranks never differ (adaptive mode agrees); if they did, the largest,
  // and the merge says so.
  ranks[1].iterations = 40;
  EXPECT_EQ(MergeStep(step, ranks, 3).iterations, 40);
  EXPECT_FALSE(MergeStep(step, ranks, 3).iterations_agree);
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::core
