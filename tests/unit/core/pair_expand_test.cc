// The pairwise op in a sweep spec: one step per round at each size, and
// the spec's limits.
#include <vector>

#include "daemon/core/pair_schedule.h"
#include "daemon/core/sweep_spec.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fabricpulse::core {
namespace {
namespace FP_UNITY_ID {

using ::testing::HasSubstr;
using ::testing::StartsWith;

SweepSpec PairSpec(uint64_t min_bytes, uint64_t max_bytes) {
  SweepSpec spec;
  spec.ops = {"pairwise"};
  spec.min_bytes = min_bytes;
  spec.max_bytes = max_bytes;
  return spec;
}

TEST(PairExpandTest, EachSizeRunsEveryRoundInOrder) {
  for (int nranks : {2, 4, 5, 8}) {
    SCOPED_TRACE(nranks);
    absl::StatusOr<std::vector<Step>> steps =
        Expand(PairSpec(1 << 10, 1 << 12), nranks);
    ASSERT_TRUE(steps.ok()) << steps.status();
    const int rounds = PairRounds(nranks);
    ASSERT_EQ(steps->size(), static_cast<size_t>(3 * rounds));
    for (size_t i = 0; i < steps->size(); ++i) {
      const Step& s = (*steps)[i];
      EXPECT_EQ(s.index, static_cast<int>(i));
      EXPECT_EQ(s.op, Op::kPairwise);
      EXPECT_EQ(s.round, static_cast<int>(i) % rounds);
      EXPECT_EQ(s.bytes, uint64_t{1} << (10 + i / rounds));
      EXPECT_FALSE(s.in_place);
      EXPECT_EQ(s.root, -1);
    }
  }
}

TEST(PairExpandTest, OtherOpsHaveNoRound) {
  SweepSpec spec = PairSpec(8, 64);
  spec.ops = {"all_reduce", "pairwise"};
  absl::StatusOr<std::vector<Step>> steps = Expand(spec, 3);
  ASSERT_TRUE(steps.ok()) << steps.status();
  for (const Step& s : *steps) {
    EXPECT_EQ(s.round >= 0, s.op == Op::kPairwise) << s.index;
  }
}

TEST(PairExpandTest, NeedsTwoRanks) {
  absl::StatusOr<ResolvedSpec> one = Validate(PairSpec(8, 64), 1);
  ASSERT_FALSE(one.ok());
  EXPECT_EQ(one.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(one.status().message()), StartsWith("ops: pairwise"));
  EXPECT_THAT(std::string(one.status().message()),
              HasSubstr("at least 2 ranks"));
}

TEST(PairExpandTest, GraphModeIsRefused) {
  SweepSpec spec = PairSpec(8, 64);
  spec.graph = true;
  absl::StatusOr<ResolvedSpec> resolved = Validate(spec, 4);
  ASSERT_FALSE(resolved.ok());
  EXPECT_THAT(std::string(resolved.status().message()), StartsWith("graph: "));
}

TEST(PairExpandTest, RoundsCountTowardsTheStepBound) {
  // 512 ranks: 511 rounds a size; 9 sizes pass 4096 steps.
  absl::StatusOr<std::vector<Step>> steps =
      Expand(PairSpec(1 << 10, 1 << 18), 512);
  ASSERT_FALSE(steps.ok());
  EXPECT_THAT(std::string(steps.status().message()),
              HasSubstr("rounds for pairwise"));
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::core
