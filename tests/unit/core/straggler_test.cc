#include "daemon/core/straggler.h"

#include <random>

#include "gtest/gtest.h"

namespace fabricpulse::core {
namespace {
namespace FP_UNITY_ID {

// A step of `time` seconds of `ranks` ranks whose last rank arrived
// `lateness` seconds after the median rank, the others within `spread`.
MergedStep StepWith(int last, double time, double lateness, int ranks = 4,
                    double spread = 0) {
  MergedStep s;
  s.time_seconds = time;
  s.last_arrival_rank = last;
  s.arrival_lateness_seconds = lateness;
  s.arrival_spread_seconds = spread;
  s.arrival_ranks = ranks;
  return s;
}

TEST(StragglerTest, RankThatConsistentlyArrivesLateIsNamed) {
  // Rank 3 arrives 5 ms late to 6 ms steps in 9 of 10 steps.
  std::vector<MergedStep> steps;
  for (int i = 0; i < 9; ++i) steps.push_back(StepWith(3, 6e-3, 5e-3));
  steps.push_back(StepWith(1, 1e-3, 10e-6));
  auto s = FindStraggler(steps);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->rank, 3);
  EXPECT_EQ(s->late_steps, 9);
  EXPECT_EQ(s->steps, 10);
  EXPECT_NEAR(s->mean_lateness, 5e-3, 1e-12);
  EXPECT_NEAR(s->mean_fraction, 5.0 / 6.0, 1e-12);
  EXPECT_EQ(s->Describe(),
            "rank 3 entered the collective last in 9 of 10 steps, on average "
            "5 ms after the median rank (83% of the step time)");
}

TEST(StragglerTest, RankZeroCanBeTheStraggler) {
  std::vector<MergedStep> steps(6, StepWith(0, 2.0, 1.0));
  auto s = FindStraggler(steps);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->rank, 0);
}

TEST(StragglerTest, ChangingLastRankIsNotAStraggler) {
  std::vector<MergedStep> steps;
  for (int i = 0; i < 8; ++i) steps.push_back(StepWith(i % 4, 6e-3, 5e-3));
  EXPECT_FALSE(FindStraggler(steps).has_value());
}

TEST(StragglerTest, TheOrdinarySpreadOfArrivalsIsNotAStraggler) {
  // Always the same rank last (a ring's completion order), but by 30 us of a
  // 100 us step: under the absolute floor.
  std::vector<MergedStep> ring(10, StepWith(2, 100e-6, 30e-6));
  EXPECT_FALSE(FindStraggler(ring).has_value());
  // 3 ms late on a 100 ms step: under the share of the step's time.
  std::vector<MergedStep> small(10, StepWith(2, 0.1, 3e-3));
  EXPECT_FALSE(FindStraggler(small).has_value());
}

TEST(StragglerTest, TooFewStepsOrNoArrivalsSayNothing) {
  std::vector<MergedStep> few(3, StepWith(2, 6e-3, 5e-3));
  EXPECT_FALSE(FindStraggler(few).has_value());
  // Steps without arrival times (graph mode, one rank) are not counted.
  std::vector<MergedStep> unmeasured(10, MergedStep{});
  for (MergedStep& s : unmeasured) s.time_seconds = 1e-3;
  EXPECT_FALSE(FindStraggler(unmeasured).has_value());
}

TEST(StragglerTest, LateInTooFewStepsIsNotAStraggler) {
  // Late in 4 of 10 steps: under half of them.
  std::vector<MergedStep> steps;
  for (int i = 0; i < 4; ++i) steps.push_back(StepWith(3, 6e-3, 5e-3));
  for (int i = 0; i < 6; ++i) steps.push_back(StepWith(3, 6e-3, 1e-6));
  EXPECT_FALSE(FindStraggler(steps).has_value());
}

// Issue 29, item 6: a rank entering every op 2 ms late, last in 9 of 10
// steps of 10 ms (20 % of each step), two ranks. The old rule wanted 25 %
// of the step time and missed it; last 9 times in 10 where chance would
// make one of two ranks so often last with probability 2 x 11/1024.
TEST(StragglerTest, APlainTwoMillisecondStragglerIsNamed) {
  std::vector<MergedStep> steps;
  for (int i = 0; i < 9; ++i) steps.push_back(StepWith(1, 10e-3, 2e-3, 2));
  steps.push_back(StepWith(0, 10e-3, 50e-6, 2));
  auto s = FindStraggler(steps);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->rank, 1);
  EXPECT_EQ(s->late_steps, 9);
  EXPECT_NEAR(s->chance, 2 * 11.0 / 1024, 1e-9);
}

// A last rank that does not stand apart from the pack (the others spread
// over 1.5 ms, it 2 ms late) is not late, however often it is last.
TEST(StragglerTest, LastWithinThePacksSpreadIsNotLate) {
  std::vector<MergedStep> steps(10, StepWith(5, 10e-3, 2e-3, 8, 1.5e-3));
  EXPECT_FALSE(LateRank(steps[0]).has_value());
  EXPECT_FALSE(FindStraggler(steps).has_value());
  std::vector<MergedStep> apart(10, StepWith(5, 10e-3, 2e-3, 8, 0.5e-3));
  EXPECT_EQ(LateRank(apart[0]), 5);
  EXPECT_TRUE(FindStraggler(apart).has_value());
}

// A healthy but noisy fabric: every step's last rank is drawn at random and
// is late by 0.6 to 3 ms of a 10 ms step (beyond every floor). Over 20,000
// simulated sweeps of 10 steps at 2 and at 8 ranks, the rule's false-alarm
// rate stays within its stated bound (max_chance, 5 %): measured 2.2 % at
// 2 ranks (last in 9 of 10; 2 x 11/1024 = 2.15 %), 3.6 % at 8 (last in 5 of
// 10; 8 x 0.45 %).
TEST(StragglerTest, ARandomLastRankIsRarelyAStraggler) {
  std::mt19937 rng(29);
  for (int ranks : {2, 8}) {
    std::uniform_int_distribution<int> who(0, ranks - 1);
    std::uniform_real_distribution<double> late(0.6e-3, 3e-3);
    int alarms = 0;
    constexpr int kSweeps = 20000;
    for (int sweep = 0; sweep < kSweeps; ++sweep) {
      std::vector<MergedStep> steps;
      for (int i = 0; i < 10; ++i) {
        steps.push_back(StepWith(who(rng), 10e-3, late(rng), ranks));
      }
      alarms += FindStraggler(steps).has_value();
    }
    const double rate = static_cast<double>(alarms) / kSweeps;
    EXPECT_LE(rate, StragglerOptions().max_chance) << ranks << " ranks";
    // The rule names a rank last in k of 10 steps once k >= 5 and
    // ranks x BinomialTail(k, 10, 1/ranks) <= 5 %: k = 9 at 2 ranks, 5 at 8;
    // the rate is about that tail (a little less: two ranks cannot both).
    const int k = ranks == 2 ? 9 : 5;
    EXPECT_NEAR(rate, ranks * BinomialTail(k, 10, 1.0 / ranks), 0.006)
        << ranks << " ranks";
  }
}

TEST(StragglerTest, BinomialTail) {
  EXPECT_DOUBLE_EQ(BinomialTail(0, 10, 0.5), 1.0);
  EXPECT_NEAR(BinomialTail(9, 10, 0.5), 11.0 / 1024, 1e-12);
  EXPECT_NEAR(BinomialTail(10, 10, 0.5), 1.0 / 1024, 1e-12);
  EXPECT_DOUBLE_EQ(BinomialTail(11, 10, 0.5), 0.0);
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::core
