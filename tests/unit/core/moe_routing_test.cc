#include "daemon/core/moe_routing.h"

#include <algorithm>
#include <numeric>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fabricpulse::core {
namespace {
namespace FP_UNITY_ID {

using ::testing::HasSubstr;

MoeShape Small() {
  MoeShape shape;
  shape.tokens = 512;
  shape.hidden = 16;
  return shape;
}

// Every token goes to 1..min(topk, nranks) ranks, each once, sorted; the
// matrix counts exactly those; the same seed gives the same routing and
// another seed another one.
TEST(MoeRoutingTest, TokensGoToTheirExpertsRanksOnceDeterministically) {
  const MoeShape shape = Small();
  for (int n : {1, 2, 3, 8}) {
    SCOPED_TRACE(n);
    const std::vector<uint64_t> rows = MoeRowMatrix(shape, n);
    for (int s = 0; s < n; ++s) {
      const SourceRouting routing = RouteSource(shape, n, s);
      ASSERT_EQ(routing.begin.size(), static_cast<size_t>(shape.tokens + 1));
      std::vector<uint64_t> counted(n, 0);
      for (int t = 0; t < shape.tokens; ++t) {
        const auto first = routing.dests.begin() + routing.begin[t];
        const auto last = routing.dests.begin() + routing.begin[t + 1];
        const int fanout = static_cast<int>(last - first);
        ASSERT_GE(fanout, 1);
        ASSERT_LE(fanout, std::min(shape.topk, n));
        ASSERT_TRUE(std::is_sorted(first, last));
        ASSERT_EQ(std::adjacent_find(first, last), last);
        for (auto it = first; it != last; ++it) counted[*it]++;
      }
      for (int d = 0; d < n; ++d) EXPECT_EQ(rows[s * n + d], counted[d]);
    }
    EXPECT_EQ(MoeRowMatrix(shape, n), rows);
  }
  MoeShape other = shape;
  other.seed = 2;
  EXPECT_NE(MoeRowMatrix(other, 8), MoeRowMatrix(shape, 8));
}

// Uniform routing spreads tokens evenly; skew sends most to the low
// experts' ranks.
TEST(MoeRoutingTest, SkewLoadsTheLowRanks) {
  MoeShape shape = Small();
  shape.tokens = 4096;
  shape.topk = 2;
  const int n = 8;
  auto received = [&](const MoeShape& s) {
    const std::vector<uint64_t> rows = MoeRowMatrix(s, n);
    std::vector<uint64_t> in(n, 0);
    for (int src = 0; src < n; ++src) {
      for (int d = 0; d < n; ++d) in[d] += rows[src * n + d];
    }
    return in;
  };
  const std::vector<uint64_t> uniform = received(shape);
  const auto [lo, hi] = std::minmax_element(uniform.begin(), uniform.end());
  EXPECT_LT(static_cast<double>(*hi) / *lo, 1.1);
  shape.skew = 1.5;
  const std::vector<uint64_t> skewed = received(shape);
  EXPECT_GT(skewed[0], 3 * skewed[n - 1]);
  // Fully skewed, one expert per rank and top-1: everything goes to rank 0.
  shape.skew = 4;
  shape.experts_per_rank = 1;
  shape.topk = 1;
  const std::vector<uint64_t> hot = received(shape);
  EXPECT_GT(hot[0], 0.9 * n * shape.tokens);
}

// Combine is dispatch backwards: what r sends to p in one is what r
// receives from p in the other, row for row; offsets pack the blocks.
TEST(MoeRoutingTest, CombineIsDispatchReversed) {
  const MoeShape shape = Small();
  const int n = 4;
  const std::vector<uint64_t> rows = MoeRowMatrix(shape, n);
  for (int r = 0; r < n; ++r) {
    auto dispatch = BuildMoeExchange(Op::kMoeDispatch, shape, n, r);
    auto combine = BuildMoeExchange(Op::kMoeCombine, shape, n, r);
    ASSERT_TRUE(dispatch.ok() && combine.ok());
    EXPECT_EQ(dispatch->send_rows, combine->recv_rows);
    EXPECT_EQ(dispatch->recv_rows, combine->send_rows);
    uint64_t offset = 0;
    for (int p = 0; p < n; ++p) {
      EXPECT_EQ(dispatch->send_rows[p], rows[r * n + p]);
      EXPECT_EQ(dispatch->recv_rows[p], rows[p * n + r]);
      EXPECT_EQ(dispatch->recv_offset[p], offset);
      offset += dispatch->recv_rows[p];
      for (uint64_t i = 0; i < dispatch->send_rows[p]; ++i) {
        EXPECT_EQ(dispatch->send_ids[dispatch->send_offset[p] + i].src, r);
      }
    }
    EXPECT_EQ(dispatch->recv_total, offset);
    EXPECT_EQ(dispatch->recv_ids.size(), dispatch->recv_total);
    EXPECT_EQ(combine->recv_ids.size(), dispatch->send_ids.size());
  }
  EXPECT_FALSE(BuildMoeExchange(Op::kAllToAll, shape, n, 0).ok());
  EXPECT_FALSE(BuildMoeExchange(Op::kMoeDispatch, shape, n, n).ok());
}

// Rows by path: at one node nothing crosses the network; across two nodes
// the parts add up to the rows a rank receives; busbw counts the rows from
// other ranks.
TEST(MoeRoutingTest, RowsPerRankSplitByPath) {
  const MoeShape shape = Small();
  const int n = 4;
  const MoeRowsByPath one = MoeRowsPerRank(shape, n, {"a", "a", "a", "a"});
  EXPECT_EQ(one.network, 0);
  EXPECT_GT(one.intra_node, 0);
  const MoeRowsByPath two = MoeRowsPerRank(shape, n, {"a", "a", "b", "b"});
  EXPECT_GT(two.network, 0);
  EXPECT_GT(two.intra_node, 0);
  EXPECT_DOUBLE_EQ(two.self + two.intra_node + two.network,
                   one.self + one.intra_node);
  EXPECT_DOUBLE_EQ(MoeBusBandwidthFactor(shape, Op::kMoeDispatch, n),
                   (two.intra_node + two.network) / shape.tokens);
  EXPECT_EQ(MoeBusBandwidthFactor(shape, Op::kMoeDispatch, 1), 0);
  // One rank's buffers: its send and receive rows at 2 bytes an element.
  EXPECT_EQ(MoeMaxBufferBytes(shape, 1),
            2ull * shape.tokens * shape.hidden * 2);
}

TEST(MoeShapeTest, EachFieldIsCheckedAndNamed) {
  EXPECT_TRUE(ValidateMoeShape(MoeShape(), 8).ok());
  struct Case {
    void (*mutate)(MoeShape&);
    const char* field;
  };
  const Case cases[] = {
      {[](MoeShape& s) { s.tokens = 0; }, "moe_tokens: 0 is out of range"},
      {[](MoeShape& s) { s.hidden = 70000; }, "moe_hidden: 70000"},
      {[](MoeShape& s) { s.experts_per_rank = 0; }, "moe_experts: 0"},
      {[](MoeShape& s) { s.topk = 33; }, "moe_topk: 33"},
      {[](MoeShape& s) { s.skew = -1; }, "moe_skew: -1"},
      {[](MoeShape& s) { s.skew = std::nan(""); }, "moe_skew: nan"},
      {[](MoeShape& s) { s.dtype = "float"; }, "moe_dtype: float"},
  };
  for (const Case& c : cases) {
    MoeShape shape;
    c.mutate(shape);
    absl::Status status = ValidateMoeShape(shape, 8);
    EXPECT_THAT(status.message(), HasSubstr(c.field));
  }
  // Top-k beyond the experts there are: 2 per rank at 2 ranks.
  MoeShape few;
  few.experts_per_rank = 2;
  EXPECT_THAT(ValidateMoeShape(few, 2).message(),
              HasSubstr("moe_topk: 8 is out of range; allowed: 1 to 4"));
  // The routing every rank computes is bounded.
  MoeShape big;
  big.tokens = 65536;
  big.topk = 32;
  EXPECT_THAT(ValidateMoeShape(big, 64).message(),
              HasSubstr("routing choices"));
  EXPECT_EQ(DescribeMoeShape(MoeShape(), 2),
            "4096 tokens x 7168 bfloat16, top-8 of 16 experts (8 per rank), "
            "skew 0, seed 1");
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::core
