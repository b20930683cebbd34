#include "daemon/core/pair_matrix.h"

#include <vector>

#include "daemon/core/pair_schedule.h"
#include "daemon/core/path_class.h"
#include "gtest/gtest.h"

namespace fabricpulse::core {
namespace {
namespace FP_UNITY_ID {

Step PairStep(int round, uint64_t bytes = 1 << 20) {
  Step step;
  step.op = Op::kPairwise;
  step.bytes = bytes;
  step.count = bytes / 4;
  step.round = round;
  return step;
}

std::vector<RankStepTiming> Timings(const std::vector<double>& seconds) {
  std::vector<RankStepTiming> out;
  for (size_t r = 0; r < seconds.size(); ++r) {
    RankStepTiming t;
    t.rank = static_cast<int>(r);
    t.mean_seconds = seconds[r];
    out.push_back(t);
  }
  return out;
}

// Ranks 0..n-1, one per node: every pair crosses the network.
std::vector<RankLocation> OnePerNode(int n) {
  std::vector<RankLocation> out;
  for (int r = 0; r < n; ++r) {
    RankLocation location;
    location.node = "node-" + std::to_string(r);
    out.push_back(location);
  }
  return out;
}

TEST(PathClassTest, ClassifiesByNodeAndNvlink) {
  const RankLocation a{"a", 0, {1}};
  const RankLocation a1{"a", 1, {0}};
  const RankLocation a2{"a", 2, {}};
  const RankLocation b{"b", 0, {1}};
  const RankLocation cpu{"a", -1, {}};
  EXPECT_EQ(ClassifyPath(a, a1), PathClass::kNvlink);
  EXPECT_EQ(ClassifyPath(a, a2), PathClass::kPcieShm);
  EXPECT_EQ(ClassifyPath(a, b), PathClass::kNetwork);
  EXPECT_EQ(ClassifyPath(cpu, cpu), PathClass::kPcieShm);
  EXPECT_EQ(PathClassName(PathClass::kNvlink), "nvlink");
  EXPECT_EQ(PathClassName(PathClass::kPcieShm), "pcie_shm");
  EXPECT_EQ(PathClassName(PathClass::kNetwork), "network");
}

TEST(PairMatrixTest, APairTakesItsSlowerRank) {
  // 4 ranks, round 0: pairs (0,3) and (1,2).
  const auto pairs = MeasurePairs(
      PairStep(0), Timings({0.002, 0.001, 0.004, 0.001}), 4, OnePerNode(4));
  ASSERT_EQ(pairs.size(), 2u);
  EXPECT_EQ(pairs[0].rank_a, 0);
  EXPECT_EQ(pairs[0].rank_b, 3);
  EXPECT_DOUBLE_EQ(pairs[0].time_seconds, 0.002);
  EXPECT_DOUBLE_EQ(pairs[0].algbw, (1 << 20) / 0.002);
  EXPECT_DOUBLE_EQ(pairs[0].busbw, pairs[0].algbw);
  EXPECT_EQ(pairs[1].rank_a, 1);
  EXPECT_EQ(pairs[1].rank_b, 2);
  EXPECT_DOUBLE_EQ(pairs[1].time_seconds, 0.004);
  EXPECT_EQ(pairs[1].path, PathClass::kNetwork);
}

TEST(PairMatrixTest, APairWithAMissingRankIsLeftOut) {
  auto timings = Timings({0.001, 0.001, 0.001, 0.001});
  timings.erase(timings.begin() + 3);
  const auto pairs = MeasurePairs(PairStep(0), timings, 4, OnePerNode(4));
  ASSERT_EQ(pairs.size(), 1u);
  EXPECT_EQ(pairs[0].rank_a, 1);
  EXPECT_TRUE(MeasurePairs(PairStep(0), Timings({1, 1, 1, 1}), 4, OnePerNode(2))
                  .size() < 2);
}

// All pairs of 4 single-rank nodes, with node 2's pairs at 1/10 of the
// others' bandwidth: those three are flagged, no other.
TEST(PairMatrixTest, ASlowNodesPairsAreFlagged) {
  std::vector<PairMeasurement> all;
  for (int round = 0; round < PairRounds(4); ++round) {
    std::vector<double> seconds(4, 0.001);
    for (const auto& [a, b] : RoundPairs(round, 4)) {
      if (a == 2 || b == 2) seconds[a] = seconds[b] = 0.010;
    }
    for (const PairMeasurement& p :
         MeasurePairs(PairStep(round), Timings(seconds), 4, OnePerNode(4))) {
      all.push_back(p);
    }
  }
  ASSERT_EQ(all.size(), 6u);
  FlagSlowPairs(all);
  for (const PairMeasurement& p : all) {
    EXPECT_EQ(p.flagged, p.rank_a == 2 || p.rank_b == 2)
        << p.rank_a << "-" << p.rank_b;
  }
}

// Rounds that share the network among more pairs run each pair slower:
// pairs are compared with the pairs that ran under the same round load
// (issue 29, item 5), so a healthy pair of a busy round is not flagged
// against the pairs of a quiet one; a slow pair among its load peers is.
TEST(PairMatrixTest, PairsAreJudgedAgainstPairsOfTheSameRoundLoad) {
  std::vector<PairMeasurement> pairs;
  auto add = [&](int load, double busbw) {
    PairMeasurement p;
    p.path = PathClass::kNetwork;
    p.bytes = 1 << 20;
    p.round_load = load;
    p.busbw = busbw;
    pairs.push_back(p);
  };
  for (int i = 0; i < 6; ++i) add(1, 10);  // alone on the network
  for (int i = 0; i < 4; ++i) add(4, 4);   // four at once: each slower
  FlagSlowPairs(pairs);
  for (const PairMeasurement& p : pairs) EXPECT_FALSE(p.flagged);
  pairs[7].busbw = 1.5;  // below half of its load peers' median (4)
  FlagSlowPairs(pairs);
  for (size_t i = 0; i < pairs.size(); ++i) {
    EXPECT_EQ(pairs[i].flagged, i == 7) << i;
  }
  // Fewer than kMinPairsToFlag pairs at a load: the whole class decides.
  pairs.resize(8);  // 6 at load 1, 2 at load 4 (4 and 1.5)
  FlagSlowPairs(pairs);
  EXPECT_TRUE(pairs[6].flagged);  // 4 < half of the class median 10
  EXPECT_TRUE(pairs[7].flagged);
}

TEST(PairMatrixTest, RoundLoadCountsThePairsOfTheClassInTheRound) {
  // Two nodes of two ranks: 3 rounds of 2 pairs each.
  std::vector<RankLocation> locations(4);
  for (int r = 0; r < 4; ++r) {
    locations[r].node = r < 2 ? "node-a" : "node-b";
    locations[r].gpu = -1;
  }
  for (int round = 0; round < PairRounds(4); ++round) {
    const auto pairs = MeasurePairs(
        PairStep(round), Timings({0.001, 0.001, 0.001, 0.001}), 4, locations);
    ASSERT_EQ(pairs.size(), 2u);
    // Both network (load 2), or one within a node and one across (1).
    const int expected = pairs[0].path == pairs[1].path ? 2 : 1;
    for (const PairMeasurement& p : pairs) {
      EXPECT_EQ(p.round_load, expected) << "round " << round;
    }
  }
}

TEST(PairMatrixTest, EvenPairsAreNotFlagged) {
  std::vector<PairMeasurement> all;
  for (int round = 0; round < PairRounds(6); ++round) {
    // Ordinary spread: within 30 % of each other.
    std::vector<double> seconds = {0.0010, 0.0012, 0.0011,
                                   0.0013, 0.0010, 0.0009};
    for (const PairMeasurement& p :
         MeasurePairs(PairStep(round), Timings(seconds), 6, OnePerNode(6))) {
      all.push_back(p);
    }
  }
  ASSERT_EQ(all.size(), 15u);
  FlagSlowPairs(all);
  for (const PairMeasurement& p : all) EXPECT_FALSE(p.flagged);
}

// Classes are judged apart (a network pair is not slow for being slower
// than NVLink), by size, and a class of fewer than kMinPairsToFlag pairs is
// never flagged.
TEST(PairMatrixTest, EachPathClassAndSizeIsJudgedAlone) {
  std::vector<PairMeasurement> pairs;
  auto add = [&](PathClass path, uint64_t bytes, double busbw) {
    PairMeasurement p;
    p.path = path;
    p.bytes = bytes;
    p.busbw = busbw;
    pairs.push_back(p);
  };
  add(PathClass::kNvlink, 1 << 20, 100);
  add(PathClass::kNvlink, 1 << 20, 100);
  add(PathClass::kNvlink, 1 << 20, 100);
  add(PathClass::kNetwork, 1 << 20, 10);
  add(PathClass::kNetwork, 1 << 20, 10);
  add(PathClass::kNetwork, 1 << 20, 10);
  add(PathClass::kNetwork, 1 << 10, 1);  // another size: its own class
  add(PathClass::kPcieShm, 1 << 20, 1);  // two pairs: never judged
  add(PathClass::kPcieShm, 1 << 20, 50);
  FlagSlowPairs(pairs);
  for (const PairMeasurement& p : pairs) EXPECT_FALSE(p.flagged);
  pairs[1].busbw = 40;  // below half of the NVLink median (100)
  FlagSlowPairs(pairs);
  EXPECT_TRUE(pairs[1].flagged);
  for (size_t i = 0; i < pairs.size(); ++i) {
    if (i != 1) {
      EXPECT_FALSE(pairs[i].flagged) << i;
    }
  }
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::core
