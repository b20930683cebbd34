#include "daemon/core/stats.h"

#include <vector>

#include "gtest/gtest.h"

namespace fabricpulse::core {
namespace {
namespace FP_UNITY_ID {

TEST(ComputeStatsTest, EmptyIsAllZero) {
  IterationStats stats = ComputeStats({});
  EXPECT_EQ(stats.mean, 0);
  EXPECT_EQ(stats.min, 0);
  EXPECT_EQ(stats.max, 0);
  EXPECT_EQ(stats.p50, 0);
  EXPECT_EQ(stats.p99, 0);
}

TEST(ComputeStatsTest, SingleSample) {
  IterationStats stats = ComputeStats({5});
  EXPECT_EQ(stats.mean, 5);
  EXPECT_EQ(stats.min, 5);
  EXPECT_EQ(stats.max, 5);
  EXPECT_EQ(stats.p50, 5);
  EXPECT_EQ(stats.p99, 5);
}

TEST(ComputeStatsTest, TwoSamplesP50IsTheLower) {
  // Nearest rank: ceil(0.5 * 2) = 1st; ceil(0.99 * 2) = 2nd.
  IterationStats stats = ComputeStats({2, 1});
  EXPECT_EQ(stats.p50, 1);
  EXPECT_EQ(stats.p99, 2);
  EXPECT_DOUBLE_EQ(stats.mean, 1.5);
}

TEST(ComputeStatsTest, UnsortedOddCount) {
  // Sorted {1, 2, 3}: p50 = ceil(1.5) = 2nd, p99 = ceil(2.97) = 3rd.
  IterationStats stats = ComputeStats({3, 1, 2});
  EXPECT_EQ(stats.min, 1);
  EXPECT_EQ(stats.max, 3);
  EXPECT_DOUBLE_EQ(stats.mean, 2);
  EXPECT_EQ(stats.p50, 2);
  EXPECT_EQ(stats.p99, 3);
}

TEST(ComputeStatsTest, FourSamples) {
  // Sorted {1, 2, 4, 9}: p50 = ceil(2.0) = 2nd, p99 = ceil(3.96) = 4th.
  IterationStats stats = ComputeStats({4, 9, 1, 2});
  EXPECT_EQ(stats.min, 1);
  EXPECT_EQ(stats.max, 9);
  EXPECT_DOUBLE_EQ(stats.mean, 4);
  EXPECT_EQ(stats.p50, 2);
  EXPECT_EQ(stats.p99, 9);
}

TEST(ComputeStatsTest, TenSamplesP99IsTheMax) {
  // Sorted 10..100: p50 = 5th = 50; p99 = ceil(9.9) = 10th = 100.
  IterationStats stats =
      ComputeStats({100, 90, 80, 70, 60, 50, 40, 30, 20, 10});
  EXPECT_EQ(stats.p50, 50);
  EXPECT_EQ(stats.p99, 100);
  EXPECT_DOUBLE_EQ(stats.mean, 55);
}

TEST(ComputeStatsTest, DuplicatesAndOutlier) {
  // Sorted {1, 1, 1, 1, 50}: p50 = ceil(2.5) = 3rd = 1.
  IterationStats stats = ComputeStats({1, 50, 1, 1, 1});
  EXPECT_EQ(stats.p50, 1);
  EXPECT_EQ(stats.p99, 50);
  EXPECT_DOUBLE_EQ(stats.mean, 54.0 / 5);
}

TEST(ComputeStatsTest, HundredAndTwoHundredSamples) {
  // Descending order so that the sort matters.
  std::vector<double> hundred;
  for (int i = 100; i >= 1; --i) hundred.push_back(i);
  IterationStats stats = ComputeStats(hundred);
  EXPECT_EQ(stats.min, 1);
  EXPECT_EQ(stats.max, 100);
  EXPECT_DOUBLE_EQ(stats.mean, 50.5);
  EXPECT_EQ(stats.p50, 50);  // 50th of 100
  EXPECT_EQ(stats.p99, 99);  // 99th of 100

  std::vector<double> two_hundred;
  for (int i = 200; i >= 1; --i) two_hundred.push_back(i);
  stats = ComputeStats(two_hundred);
  EXPECT_EQ(stats.p50, 100);  // 100th of 200
  EXPECT_EQ(stats.p99, 198);  // 198th of 200
}

TEST(ComputeStatsTest, PercentilesAreExactRanksForEveryLength) {
  // Samples 1..n: the nearest-rank percentile is the rank itself, which the
  // integer formula ceil(p * n / 100) gives without rounding error.
  for (int n = 1; n <= 1000; ++n) {
    std::vector<double> samples;
    for (int i = n; i >= 1; --i) samples.push_back(i);
    IterationStats stats = ComputeStats(samples);
    ASSERT_EQ(stats.p50, (50 * n + 99) / 100) << n;
    ASSERT_EQ(stats.p99, (99 * n + 99) / 100) << n;
  }
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::core
