#include "daemon/core/straggler.h"

#include "gtest/gtest.h"

namespace fabricpulse::core {
namespace {

// A step of `time` seconds whose last rank arrived `lateness` seconds after
// the median rank.
MergedStep StepWith(int last, double time, double lateness) {
  MergedStep s;
  s.time_seconds = time;
  s.last_arrival_rank = last;
  s.arrival_lateness_seconds = lateness;
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
  // 1 ms late on a 100 ms step: under the share of the step's time.
  std::vector<MergedStep> small(10, StepWith(2, 0.1, 1e-3));
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
  // Late in 7 of 10 steps: under the 75 % share.
  std::vector<MergedStep> steps;
  for (int i = 0; i < 7; ++i) steps.push_back(StepWith(3, 6e-3, 5e-3));
  for (int i = 0; i < 3; ++i) steps.push_back(StepWith(3, 6e-3, 1e-6));
  EXPECT_FALSE(FindStraggler(steps).has_value());
}

}  // namespace
}  // namespace fabricpulse::core
