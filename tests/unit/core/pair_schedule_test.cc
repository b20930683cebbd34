#include "daemon/core/pair_schedule.h"

#include <set>
#include <utility>

#include "gtest/gtest.h"

namespace fabricpulse::core {
namespace {
namespace FP_UNITY_ID {

// Every pair meets exactly once, each round's pairs are disjoint, partners
// agree both ways, and at most one rank sits a round out (odd counts only).
TEST(PairScheduleTest, EveryPairMeetsOnceInDisjointRounds) {
  for (int n = 2; n <= 17; ++n) {
    SCOPED_TRACE(n);
    EXPECT_EQ(PairRounds(n), n % 2 == 0 ? n - 1 : n);
    std::set<std::pair<int, int>> met;
    for (int round = 0; round < PairRounds(n); ++round) {
      std::set<int> busy;
      int idle = 0;
      for (int rank = 0; rank < n; ++rank) {
        const int partner = PairPartner(round, rank, n);
        if (partner < 0) {
          idle++;
          continue;
        }
        ASSERT_NE(partner, rank);
        ASSERT_LT(partner, n);
        ASSERT_EQ(PairPartner(round, partner, n), rank);
        busy.insert(rank);
        if (rank < partner) {
          EXPECT_TRUE(met.insert({rank, partner}).second)
              << rank << "-" << partner << " met twice";
        }
      }
      EXPECT_EQ(idle, n % 2) << "round " << round;
      EXPECT_EQ(RoundPairs(round, n).size(), static_cast<size_t>(n / 2));
    }
    EXPECT_EQ(met.size(), static_cast<size_t>(n * (n - 1) / 2));
  }
}

TEST(PairScheduleTest, OutOfRangeHasNoPartner) {
  EXPECT_EQ(PairRounds(1), 0);
  EXPECT_EQ(PairRounds(0), 0);
  EXPECT_EQ(PairPartner(0, 0, 1), -1);
  EXPECT_EQ(PairPartner(-1, 0, 4), -1);
  EXPECT_EQ(PairPartner(3, 0, 4), -1);  // 4 ranks: rounds 0..2
  EXPECT_EQ(PairPartner(0, 4, 4), -1);
  EXPECT_EQ(PairPartner(0, -1, 4), -1);
  EXPECT_TRUE(RoundPairs(5, 4).empty());
}

TEST(PairScheduleTest, RoundPairsAreOrderedLowFirst) {
  for (const auto& [a, b] : RoundPairs(1, 6)) EXPECT_LT(a, b);
  const auto pairs = RoundPairs(0, 2);
  ASSERT_EQ(pairs.size(), 1u);
  EXPECT_EQ(pairs[0], std::make_pair(0, 1));
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::core
