#include "daemon/core/data_pattern.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "daemon/core/pair_schedule.h"
#include "gtest/gtest.h"

namespace fabricpulse::core {
namespace {
namespace FP_UNITY_ID {

constexpr Op kAllOps[] = {Op::kAllReduce, Op::kAllGather, Op::kReduceScatter,
                          Op::kBroadcast, Op::kReduce,    Op::kAllToAll,
                          Op::kSendRecv,  Op::kGather,    Op::kScatter,
                          Op::kPairwise};
constexpr RedOp kAllRedOps[] = {RedOp::kSum, RedOp::kProd, RedOp::kMin,
                                RedOp::kMax, RedOp::kAvg};

Step MakeStep(Op op, uint64_t count, DType dtype, RedOp redop, int root) {
  Step step;
  step.op = op;
  step.count = count;
  step.dtype = dtype;
  step.bytes = count * DTypeSize(dtype);
  step.redop = redop;
  step.root = IsRooted(op) ? root : -1;
  // The pairwise op's round takes the place of the root in these tests.
  step.round = op == Op::kPairwise ? root : -1;
  return step;
}

// Reduces one value per rank the way the collective does.
double ReferenceReduce(RedOp redop, DType dtype,
                       const std::vector<double>& values) {
  double acc = values[0];
  for (size_t r = 1; r < values.size(); ++r) {
    switch (redop) {
      case RedOp::kSum:
      case RedOp::kAvg:
        acc += values[r];
        break;
      case RedOp::kProd:
        acc *= values[r];
        break;
      case RedOp::kMin:
        acc = std::min(acc, values[r]);
        break;
      case RedOp::kMax:
        acc = std::max(acc, values[r]);
        break;
    }
  }
  if (redop == RedOp::kAvg) {
    acc /= static_cast<double>(values.size());
    if (!IsFloatingPoint(dtype)) acc = std::trunc(acc);
  }
  return acc;
}

// Runs the collective on the host over send buffers filled from InputValue
// and returns every rank's receive buffer (empty for ranks that receive
// nothing checked).
std::vector<std::vector<double>> Simulate(const Step& step, int nranks) {
  const uint64_t chunk = step.count / nranks;
  std::vector<std::vector<double>> send(nranks);
  for (int r = 0; r < nranks; ++r) {
    const BufferLayout layout = LayoutFor(step.op, step.count, nranks, r,
                                          /*in_place=*/false);
    for (uint64_t i = 0; i < layout.send_count; ++i) {
      send[r].push_back(InputValue(step, r, nranks, i));
    }
  }
  auto reduce_at = [&](uint64_t i) {
    std::vector<double> values;
    for (int r = 0; r < nranks; ++r) values.push_back(send[r][i]);
    return ReferenceReduce(step.redop, step.dtype, values);
  };
  std::vector<std::vector<double>> recv(nranks);
  for (int r = 0; r < nranks; ++r) {
    std::vector<double>& out = recv[r];
    switch (step.op) {
      case Op::kAllReduce:
        for (uint64_t i = 0; i < step.count; ++i) out.push_back(reduce_at(i));
        break;
      case Op::kReduce:
        if (r != step.root) break;
        for (uint64_t i = 0; i < step.count; ++i) out.push_back(reduce_at(i));
        break;
      case Op::kReduceScatter:
        for (uint64_t i = 0; i < chunk; ++i) {
          out.push_back(reduce_at(r * chunk + i));
        }
        break;
      case Op::kAllGather:
        for (int q = 0; q < nranks; ++q) {
          for (uint64_t i = 0; i < chunk; ++i) out.push_back(send[q][i]);
        }
        break;
      case Op::kGather:
        if (r != step.root) break;
        for (int q = 0; q < nranks; ++q) {
          for (uint64_t i = 0; i < chunk; ++i) out.push_back(send[q][i]);
        }
        break;
      case Op::kBroadcast:
        out = send[step.root];
        break;
      case Op::kScatter:
        for (uint64_t i = 0; i < chunk; ++i) {
          out.push_back(send[step.root][r * chunk + i]);
        }
        break;
      case Op::kAllToAll:
        // Rank q sends its chunk r to rank r, which stores it as chunk q.
        for (int q = 0; q < nranks; ++q) {
          for (uint64_t i = 0; i < chunk; ++i) {
            out.push_back(send[q][r * chunk + i]);
          }
        }
        break;
      case Op::kSendRecv:
        // nccl-tests' ring: send to rank + 1, receive from rank - 1.
        out = send[(r - 1 + nranks) % nranks];
        break;
      case Op::kPairwise:
        // The two ranks of each of the round's pairs swap their buffers.
        for (const auto& [a, b] : RoundPairs(step.round, nranks)) {
          if (r == a) out = send[b];
          if (r == b) out = send[a];
        }
        break;
      case Op::kMoeDispatch:
      case Op::kMoeCombine:
      case Op::kMoeCombineWeighted:
        break;  // their data check is moe_data_test's
    }
  }
  return recv;
}

class DataPatternTest : public ::testing::TestWithParam<std::tuple<Op, int>> {};

TEST_P(DataPatternTest, ExpectedValueMatchesHostSimulation) {
  const auto [op, nranks] = GetParam();
  // 120 elements split evenly over 2, 3 and 4 ranks, long enough to cycle
  // through every residue of the patterns.
  const uint64_t count = 120;
  ASSERT_EQ(StepCount(op, count * 4, 4, nranks), count);
  for (DType dtype : {DType::kFloat, DType::kInt32, DType::kFp8E4M3}) {
    for (RedOp redop : kAllRedOps) {
      for (int root : {0, nranks - 1}) {
        SCOPED_TRACE(absl::StrCat(DTypeName(dtype), " ", RedOpName(redop),
                                  " root ", root));
        const Step step = MakeStep(op, count, dtype, redop, root);
        const std::vector<std::vector<double>> recv = Simulate(step, nranks);
        for (int r = 0; r < nranks; ++r) {
          const BufferLayout layout =
              LayoutFor(op, count, nranks, r, /*in_place=*/false);
          if (!HasCheckedOutput(step, r, nranks)) {
            EXPECT_TRUE(recv[r].empty()) << "rank " << r;
            continue;
          }
          ASSERT_EQ(recv[r].size(), layout.recv_count) << "rank " << r;
          for (uint64_t i = 0; i < layout.recv_count; ++i) {
            ASSERT_EQ(ExpectedValue(step, r, nranks, i), recv[r][i])
                << "rank " << r << " index " << i;
          }
        }
      }
    }
  }
}

TEST_P(DataPatternTest, InputValueIsNeverZeroAndSmall) {
  const auto [op, nranks] = GetParam();
  for (RedOp redop : kAllRedOps) {
    const Step step = MakeStep(op, 120, DType::kFloat, redop, 0);
    for (int r = 0; r < nranks; ++r) {
      for (uint64_t i = 0; i < 120; ++i) {
        const double v = InputValue(step, r, nranks, i);
        ASSERT_NE(v, 0) << RedOpName(redop) << " rank " << r << " index " << i;
        // Small positive integers: exact in every dtype, fp8 e5m2 included.
        ASSERT_GE(v, 1);
        ASSERT_LE(v, 8);
        ASSERT_EQ(v, std::trunc(v));
      }
    }
  }
}

TEST_P(DataPatternTest, CheckedOutputOnlyWhereTheOpDeliversData) {
  const auto [op, nranks] = GetParam();
  for (int root = 0; root < nranks; ++root) {
    const Step step = MakeStep(op, 120, DType::kFloat, RedOp::kSum, root);
    for (int r = 0; r < nranks; ++r) {
      const bool rooted_receive = op == Op::kReduce || op == Op::kGather;
      const bool delivered = op == Op::kPairwise
                                 ? PairPartner(root, r, nranks) >= 0
                                 : !rooted_receive || r == root;
      EXPECT_EQ(HasCheckedOutput(step, r, nranks), delivered)
          << "root " << root << " rank " << r;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    OpsByRanks, DataPatternTest,
    ::testing::Combine(::testing::ValuesIn(kAllOps),
                       ::testing::Values(2, 3, 4)),
    [](const ::testing::TestParamInfo<std::tuple<Op, int>>& info) {
      return absl::StrCat(OpName(std::get<0>(info.param)), "_",
                          std::get<1>(info.param), "ranks");
    });

TEST(InputValueTest, DataFromTheWrongRankIsDetected) {
  // For data movement, the same position of two ranks' send buffers always
  // holds different values, so a chunk delivered from the wrong rank fails
  // the check at every element.
  for (Op op : kAllOps) {
    if (IsReduction(op)) continue;  // reductions mix ranks by design
    const Step step = MakeStep(op, 120, DType::kFloat, RedOp::kSum, 0);
    for (int nranks : {2, 3, 4, 8}) {
      for (uint64_t i = 0; i < 120; ++i) {
        for (int a = 0; a < nranks; ++a) {
          for (int b = a + 1; b < nranks; ++b) {
            ASSERT_NE(InputValue(step, a, nranks, i),
                      InputValue(step, b, nranks, i))
                << OpName(op) << " ranks " << a << " and " << b << " index "
                << i;
          }
        }
      }
    }
  }
}

TEST(ExpectedValueTest, HandComputedReductions) {
  // Sum inputs (rank + index) % 4 + 1; at index 2 over 3 ranks: 3 + 4 + 1.
  Step step = MakeStep(Op::kAllReduce, 12, DType::kFloat, RedOp::kSum, 0);
  EXPECT_EQ(ExpectedValue(step, 0, 3, 2), 8);
  // Avg: 8 / 3, truncated to 2 for an integer dtype.
  step.redop = RedOp::kAvg;
  EXPECT_DOUBLE_EQ(ExpectedValue(step, 1, 3, 2), 8.0 / 3.0);
  step.dtype = DType::kInt32;
  EXPECT_EQ(ExpectedValue(step, 1, 3, 2), 2);
  // Prod: exactly one rank contributes 2.
  step.redop = RedOp::kProd;
  for (int nranks : {1, 2, 3, 4, 8}) {
    for (uint64_t i = 0; i < 12; ++i) {
      EXPECT_EQ(ExpectedValue(step, 0, nranks, i), 2) << nranks << " " << i;
    }
  }
  // Min/max inputs (3 * rank + index) % 5 + 1; at index 0 over 2 ranks: 1, 4.
  step.redop = RedOp::kMin;
  EXPECT_EQ(ExpectedValue(step, 0, 2, 0), 1);
  step.redop = RedOp::kMax;
  EXPECT_EQ(ExpectedValue(step, 1, 2, 0), 4);
}

// Rounds to nearest with `mantissa_bits` explicit mantissa bits (ties away
// from zero, which is never closer than ties-to-even).
double RoundToMantissa(double x, int mantissa_bits) {
  if (x == 0) return 0;
  int exponent = 0;
  const double fraction = std::frexp(x, &exponent);  // in [0.5, 1)
  const double scale = std::ldexp(1.0, mantissa_bits + 1);
  return std::ldexp(std::round(fraction * scale) / scale, exponent);
}

TEST(ToleranceTest, CoversCorrectRoundingOfEveryExpectedReduction) {
  // A device result that is the expected value correctly rounded to the
  // dtype must pass the check, for every redop and up to 8 ranks.
  struct Narrow {
    DType dtype;
    int mantissa_bits;
  };
  const Narrow kNarrow[] = {{DType::kHalf, 10},
                            {DType::kBfloat16, 7},
                            {DType::kFp8E4M3, 3},
                            {DType::kFp8E5M2, 2},
                            {DType::kFloat, 23}};
  for (const Narrow& n : kNarrow) {
    for (RedOp redop : kAllRedOps) {
      for (int nranks = 1; nranks <= 8; ++nranks) {
        const Step step = MakeStep(Op::kAllReduce, 840, n.dtype, redop, 0);
        for (uint64_t i = 0; i < 840; ++i) {
          const double expected = ExpectedValue(step, 0, nranks, i);
          const double rounded = RoundToMantissa(expected, n.mantissa_bits);
          ASSERT_LE(std::fabs(rounded - expected), Tolerance(n.dtype, expected))
              << DTypeName(n.dtype) << " " << RedOpName(redop) << " nranks "
              << nranks << " index " << i << ": " << expected << " -> "
              << rounded;
        }
      }
    }
  }
}

TEST(ToleranceTest, ExactForIntegersRelativeForFloats) {
  for (DType dtype : {DType::kInt8, DType::kUint8, DType::kInt32,
                      DType::kUint32, DType::kInt64, DType::kUint64}) {
    EXPECT_EQ(Tolerance(dtype, 100), 0) << DTypeName(dtype);
  }
  EXPECT_DOUBLE_EQ(Tolerance(DType::kFloat, 0.5), 1e-6);
  EXPECT_DOUBLE_EQ(Tolerance(DType::kFloat, -100), 1e-4);
  EXPECT_DOUBLE_EQ(Tolerance(DType::kDouble, 2), 2e-12);
  EXPECT_DOUBLE_EQ(Tolerance(DType::kHalf, 2), 2e-3);
  EXPECT_DOUBLE_EQ(Tolerance(DType::kBfloat16, 1), 1e-2);
  EXPECT_DOUBLE_EQ(Tolerance(DType::kFp8E4M3, 16), 1.0);
  EXPECT_DOUBLE_EQ(Tolerance(DType::kFp8E5M2, 8), 1.0);
  EXPECT_DOUBLE_EQ(Tolerance(DType::kFp8E5M2, 0), 0.125);
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::core
