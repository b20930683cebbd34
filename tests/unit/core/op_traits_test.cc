#include "daemon/core/op_traits.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <tuple>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fabricpulse::core {
namespace {
namespace FP_UNITY_ID {

using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr Op kAllOps[] = {
    Op::kAllReduce,         Op::kAllGather,   Op::kReduceScatter,
    Op::kBroadcast,         Op::kReduce,      Op::kAllToAll,
    Op::kSendRecv,          Op::kGather,      Op::kScatter,
    Op::kPairwise,          Op::kMoeDispatch, Op::kMoeCombine,
    Op::kMoeCombineWeighted};

TEST(OpNameTest, CanonicalNamesRoundTrip) {
  const char* kNames[] = {"all_reduce",
                          "all_gather",
                          "reduce_scatter",
                          "broadcast",
                          "reduce",
                          "alltoall",
                          "sendrecv",
                          "gather",
                          "scatter",
                          "pairwise",
                          "moe_dispatch",
                          "moe_combine",
                          "moe_combine_weighted"};
  for (int i = 0; i < 13; ++i) {
    EXPECT_EQ(OpName(kAllOps[i]), kNames[i]);
    absl::StatusOr<Op> parsed = ParseOp(kNames[i]);
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_EQ(*parsed, kAllOps[i]);
  }
  EXPECT_EQ(AllOpNames(),
            "all_reduce, all_gather, reduce_scatter, broadcast, reduce, "
            "alltoall, sendrecv, gather, scatter, pairwise, moe_dispatch, "
            "moe_combine, moe_combine_weighted");
}

TEST(ParseOpTest, AliasesAndCase) {
  struct Alias {
    const char* name;
    Op op;
  };
  const Alias kAliases[] = {
      {"allreduce", Op::kAllReduce}, {"ALL_REDUCE", Op::kAllReduce},
      {"allgather", Op::kAllGather}, {"reducescatter", Op::kReduceScatter},
      {"all_to_all", Op::kAllToAll}, {"all2all", Op::kAllToAll},
      {"pt2pt", Op::kSendRecv},      {"send_recv", Op::kSendRecv},
      {"Broadcast", Op::kBroadcast},
  };
  for (const Alias& a : kAliases) {
    absl::StatusOr<Op> parsed = ParseOp(a.name);
    ASSERT_TRUE(parsed.ok()) << a.name << ": " << parsed.status();
    EXPECT_EQ(*parsed, a.op) << a.name;
  }
}

TEST(ParseOpTest, UnknownNameNamesFieldValueAndAllowedNames) {
  for (const char* name : {"", "allreduce2", "bcast", "all reduce"}) {
    absl::StatusOr<Op> parsed = ParseOp(name);
    ASSERT_FALSE(parsed.ok()) << name;
    EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
    const std::string message(parsed.status().message());
    EXPECT_THAT(message, StartsWith("ops: "));
    EXPECT_THAT(message, HasSubstr(absl::StrCat("'", name, "'")));
    EXPECT_THAT(message, HasSubstr(AllOpNames()));
  }
}

TEST(OpPropertiesTest, MatchNcclSemantics) {
  struct Props {
    Op op;
    bool reduction;
    bool rooted;
    bool splits;
    bool in_place;
  };
  const Props kProps[] = {
      {Op::kAllReduce, true, false, false, true},
      {Op::kAllGather, false, false, true, true},
      {Op::kReduceScatter, true, false, true, true},
      {Op::kBroadcast, false, true, false, true},
      {Op::kReduce, true, true, false, true},
      {Op::kAllToAll, false, false, true, false},
      {Op::kSendRecv, false, false, false, false},
      {Op::kGather, false, true, true, true},
      {Op::kScatter, false, true, true, true},
      {Op::kPairwise, false, false, false, false},
      {Op::kMoeDispatch, false, false, false, false},
      {Op::kMoeCombine, false, false, false, false},
      {Op::kMoeCombineWeighted, false, false, false, false},
  };
  for (const Props& p : kProps) {
    SCOPED_TRACE(OpName(p.op));
    EXPECT_EQ(IsMoe(p.op), p.op == Op::kMoeDispatch ||
                               p.op == Op::kMoeCombine ||
                               p.op == Op::kMoeCombineWeighted);
    EXPECT_EQ(IsReduction(p.op), p.reduction);
    EXPECT_EQ(IsRooted(p.op), p.rooted);
    EXPECT_EQ(SplitsCount(p.op), p.splits);
    EXPECT_EQ(SupportsInPlace(p.op), p.in_place);
  }
}

// nccl-tests' bus bandwidth factors, worked out by hand per op and nranks.
struct FactorCase {
  Op op;
  int nranks;
  double factor;
};

class BusBandwidthFactorTest : public ::testing::TestWithParam<FactorCase> {};

TEST_P(BusBandwidthFactorTest, MatchesNcclTests) {
  const FactorCase& c = GetParam();
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(c.op, c.nranks), c.factor);
}

INSTANTIATE_TEST_SUITE_P(
    AllReduce, BusBandwidthFactorTest,
    ::testing::Values(FactorCase{Op::kAllReduce, 1, 0.0},
                      FactorCase{Op::kAllReduce, 2, 1.0},
                      FactorCase{Op::kAllReduce, 3, 4.0 / 3.0},
                      FactorCase{Op::kAllReduce, 4, 1.5},
                      FactorCase{Op::kAllReduce, 8, 1.75},
                      FactorCase{Op::kAllReduce, 16, 1.875}));

INSTANTIATE_TEST_SUITE_P(
    NMinusOneOverN, BusBandwidthFactorTest,
    ::testing::Values(
        FactorCase{Op::kAllGather, 1, 0.0}, FactorCase{Op::kAllGather, 2, 0.5},
        FactorCase{Op::kAllGather, 3, 2.0 / 3.0},
        FactorCase{Op::kAllGather, 4, 0.75},
        FactorCase{Op::kAllGather, 8, 0.875},
        FactorCase{Op::kReduceScatter, 2, 0.5},
        FactorCase{Op::kReduceScatter, 4, 0.75},
        FactorCase{Op::kReduceScatter, 8, 0.875},
        FactorCase{Op::kAllToAll, 2, 0.5}, FactorCase{Op::kAllToAll, 4, 0.75},
        FactorCase{Op::kAllToAll, 8, 0.875}, FactorCase{Op::kGather, 2, 0.5},
        FactorCase{Op::kGather, 4, 0.75}, FactorCase{Op::kScatter, 2, 0.5},
        FactorCase{Op::kScatter, 4, 0.75}));

INSTANTIATE_TEST_SUITE_P(One, BusBandwidthFactorTest,
                         ::testing::Values(FactorCase{Op::kBroadcast, 1, 1.0},
                                           FactorCase{Op::kBroadcast, 4, 1.0},
                                           FactorCase{Op::kBroadcast, 8, 1.0},
                                           FactorCase{Op::kReduce, 2, 1.0},
                                           FactorCase{Op::kReduce, 4, 1.0},
                                           FactorCase{Op::kSendRecv, 2, 1.0},
                                           FactorCase{Op::kSendRecv, 8, 1.0}));

TEST(StepCountTest, HandComputedCounts) {
  // 100 bytes of float = 25 elements; 3 ranks split 24 evenly.
  EXPECT_EQ(StepCount(Op::kAllGather, 100, 4, 3), 24u);
  EXPECT_EQ(StepCount(Op::kReduceScatter, 100, 4, 3), 24u);
  EXPECT_EQ(StepCount(Op::kAllToAll, 100, 4, 3), 24u);
  EXPECT_EQ(StepCount(Op::kGather, 100, 4, 3), 24u);
  EXPECT_EQ(StepCount(Op::kScatter, 100, 4, 3), 24u);
  // Ops that do not split keep every whole element.
  EXPECT_EQ(StepCount(Op::kAllReduce, 100, 4, 3), 25u);
  EXPECT_EQ(StepCount(Op::kBroadcast, 100, 4, 3), 25u);
  EXPECT_EQ(StepCount(Op::kReduce, 100, 4, 3), 25u);
  EXPECT_EQ(StepCount(Op::kSendRecv, 100, 4, 3), 25u);
  // A trailing partial element is dropped.
  EXPECT_EQ(StepCount(Op::kAllReduce, 7, 2, 8), 3u);
  EXPECT_EQ(StepCount(Op::kAllReduce, 1 << 20, 8, 8), 131072u);
  // 1M of float = 262144 elements; 3 ranks: 87381 each.
  EXPECT_EQ(StepCount(Op::kAllGather, 1 << 20, 4, 3), 262143u);
  // One rank: nothing to round.
  EXPECT_EQ(StepCount(Op::kAllGather, 100, 4, 1), 25u);
}

TEST(StepCountTest, ZeroWhenTooSmall) {
  EXPECT_EQ(StepCount(Op::kAllReduce, 7, 8, 2), 0u);
  EXPECT_EQ(StepCount(Op::kAllReduce, 0, 4, 2), 0u);
  // 8 bytes of float = 2 elements: too few for 4 ranks.
  EXPECT_EQ(StepCount(Op::kReduceScatter, 8, 4, 4), 0u);
  EXPECT_EQ(StepCount(Op::kAllGather, 15, 4, 4), 0u);
  EXPECT_EQ(StepCount(Op::kAllGather, 16, 4, 4), 4u);
  EXPECT_EQ(StepCount(Op::kAllToAll, 63, 8, 8), 0u);
  EXPECT_EQ(StepCount(Op::kAllToAll, 64, 8, 8), 8u);
}

TEST(LayoutForTest, InPlaceAllGatherSendsFromItsSlotOfTheReceiveBuffer) {
  // count 24 over 3 ranks: chunks of 8.
  for (int rank = 0; rank < 3; ++rank) {
    SCOPED_TRACE(rank);
    BufferLayout layout = LayoutFor(Op::kAllGather, 24, 3, rank, true);
    EXPECT_TRUE(layout.in_place);
    EXPECT_EQ(layout.send_count, 8u);
    EXPECT_EQ(layout.recv_count, 24u);
    EXPECT_EQ(layout.alloc_count, 24u);
    EXPECT_EQ(layout.send_offset, 8u * rank);
    EXPECT_EQ(layout.recv_offset, 0u);
  }
  BufferLayout gather = LayoutFor(Op::kGather, 24, 3, 2, true);
  EXPECT_EQ(gather.send_count, 8u);
  EXPECT_EQ(gather.recv_count, 24u);
  EXPECT_EQ(gather.alloc_count, 24u);
  EXPECT_EQ(gather.send_offset, 16u);
  EXPECT_EQ(gather.recv_offset, 0u);
}

TEST(LayoutForTest, InPlaceReduceScatterReceivesIntoItsSlotOfTheSendBuffer) {
  // count 32 over 4 ranks: chunks of 8.
  for (int rank = 0; rank < 4; ++rank) {
    SCOPED_TRACE(rank);
    BufferLayout layout = LayoutFor(Op::kReduceScatter, 32, 4, rank, true);
    EXPECT_TRUE(layout.in_place);
    EXPECT_EQ(layout.send_count, 32u);
    EXPECT_EQ(layout.recv_count, 8u);
    EXPECT_EQ(layout.alloc_count, 32u);
    EXPECT_EQ(layout.send_offset, 0u);
    EXPECT_EQ(layout.recv_offset, 8u * rank);
  }
  BufferLayout scatter = LayoutFor(Op::kScatter, 32, 4, 3, true);
  EXPECT_EQ(scatter.send_count, 32u);
  EXPECT_EQ(scatter.recv_count, 8u);
  EXPECT_EQ(scatter.alloc_count, 32u);
  EXPECT_EQ(scatter.send_offset, 0u);
  EXPECT_EQ(scatter.recv_offset, 24u);
}

TEST(LayoutForTest, OutOfPlaceUsesSeparateBuffers) {
  BufferLayout ag = LayoutFor(Op::kAllGather, 24, 3, 2, false);
  EXPECT_FALSE(ag.in_place);
  EXPECT_EQ(ag.send_count, 8u);
  EXPECT_EQ(ag.recv_count, 24u);
  EXPECT_EQ(ag.alloc_count, 0u);
  EXPECT_EQ(ag.send_offset, 0u);
  EXPECT_EQ(ag.recv_offset, 0u);

  BufferLayout rs = LayoutFor(Op::kReduceScatter, 24, 3, 2, false);
  EXPECT_EQ(rs.send_count, 24u);
  EXPECT_EQ(rs.recv_count, 8u);
  EXPECT_EQ(rs.alloc_count, 0u);
  EXPECT_EQ(rs.recv_offset, 0u);

  for (Op op : {Op::kAllReduce, Op::kBroadcast, Op::kReduce, Op::kAllToAll,
                Op::kSendRecv}) {
    SCOPED_TRACE(OpName(op));
    BufferLayout layout = LayoutFor(op, 24, 3, 1, false);
    EXPECT_EQ(layout.send_count, 24u);
    EXPECT_EQ(layout.recv_count, 24u);
    EXPECT_EQ(layout.alloc_count, 0u);
    EXPECT_EQ(layout.send_offset, 0u);
    EXPECT_EQ(layout.recv_offset, 0u);
  }
}

TEST(LayoutForTest, InPlaceSameSizeOpsShareOneBufferAtOffsetZero) {
  for (Op op : {Op::kAllReduce, Op::kBroadcast, Op::kReduce}) {
    SCOPED_TRACE(OpName(op));
    BufferLayout layout = LayoutFor(op, 25, 3, 2, true);
    EXPECT_TRUE(layout.in_place);
    EXPECT_EQ(layout.send_count, 25u);
    EXPECT_EQ(layout.recv_count, 25u);
    EXPECT_EQ(layout.alloc_count, 25u);
    EXPECT_EQ(layout.send_offset, 0u);
    EXPECT_EQ(layout.recv_offset, 0u);
  }
}

// Every rank's in-place send and receive windows lie inside the allocation,
// for every op that has an in-place variant.
class LayoutMatrixTest : public ::testing::TestWithParam<std::tuple<Op, int>> {
};

TEST_P(LayoutMatrixTest, InPlaceWindowsFitTheAllocation) {
  const auto [op, nranks] = GetParam();
  const uint64_t count = StepCount(op, 1000, 4, nranks);
  ASSERT_GT(count, 0u);
  for (int rank = 0; rank < nranks; ++rank) {
    SCOPED_TRACE(rank);
    BufferLayout layout = LayoutFor(op, count, nranks, rank, true);
    EXPECT_EQ(layout.alloc_count, count);
    EXPECT_LE(layout.send_offset + layout.send_count, layout.alloc_count);
    EXPECT_LE(layout.recv_offset + layout.recv_count, layout.alloc_count);
    if (SplitsCount(op)) {
      EXPECT_EQ(std::min(layout.send_count, layout.recv_count) * nranks, count);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    InPlaceOps, LayoutMatrixTest,
    ::testing::Combine(::testing::Values(Op::kAllReduce, Op::kAllGather,
                                         Op::kReduceScatter, Op::kBroadcast,
                                         Op::kReduce, Op::kGather,
                                         Op::kScatter),
                       ::testing::Values(1, 2, 3, 4, 8)),
    [](const ::testing::TestParamInfo<std::tuple<Op, int>>& info) {
      return absl::StrCat(OpName(std::get<0>(info.param)), "_",
                          std::get<1>(info.param), "ranks");
    });

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::core
