#include "daemon/core/straggler.h"

#include "gtest/gtest.h"

namespace fabricpulse::core {
namespace {

MergedStep StepWith(int slowest, double fastest_s, double slowest_s) {
  MergedStep s;
  s.slowest_rank = slowest;
  s.min_rank_time_seconds = fastest_s;
  s.max_rank_time_seconds = slowest_s;
  return s;
}

TEST(StragglerTest, ConsistentlySlowestRankBeyondTheMarginIsNamed) {
  std::vector<MergedStep> steps;
  for (int i = 0; i < 9; ++i) steps.push_back(StepWith(3, 1.0, 1.25));
  steps.push_back(StepWith(1, 1.0, 1.01));
  auto s = FindStraggler(steps);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->rank, 3);
  EXPECT_EQ(s->slowest_steps, 9);
  EXPECT_EQ(s->steps, 10);
  EXPECT_NEAR(s->mean_gap, 0.25, 1e-12);
  EXPECT_EQ(s->Describe(),
            "rank 3 was the slowest in 9 of 10 steps, 25% slower than the "
            "fastest rank on average");
}

TEST(StragglerTest, RankZeroCanBeTheStraggler) {
  std::vector<MergedStep> steps(6, StepWith(0, 2.0, 3.0));
  auto s = FindStraggler(steps);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->rank, 0);
}

TEST(StragglerTest, NoiseIsNotAStraggler) {
  // The slowest rank changes from step to step.
  std::vector<MergedStep> steps;
  for (int i = 0; i < 8; ++i) steps.push_back(StepWith(i % 4, 1.0, 1.5));
  EXPECT_FALSE(FindStraggler(steps).has_value());
  // Always the same rank, but within 10% of the fastest.
  std::vector<MergedStep> close(8, StepWith(2, 1.0, 1.05));
  EXPECT_FALSE(FindStraggler(close).has_value());
  // Too few steps to say.
  std::vector<MergedStep> few(3, StepWith(2, 1.0, 2.0));
  EXPECT_FALSE(FindStraggler(few).has_value());
}

}  // namespace
}  // namespace fabricpulse::core
