#include "daemon/core/moe_data.h"

#include <cmath>
#include <cstring>
#include <vector>

#include "gtest/gtest.h"

namespace fabricpulse::core {
namespace {
namespace FP_UNITY_ID {

TEST(MoeDataTest, ElementsRoundTripAndPoisonIsNaN) {
  for (DType dtype : {DType::kBfloat16, DType::kFp8E4M3}) {
    unsigned char buf[2];
    for (double v : {1.0, 2.0, 3.0, 5.0, 7.0, 8.0, 0.5, -4.0, 16.0, 448.0}) {
      EncodeMoeElement(dtype, v, buf);
      EXPECT_EQ(DecodeMoeElement(dtype, buf), v) << DTypeName(dtype);
    }
    std::memset(buf, 0xFF, sizeof(buf));
    EXPECT_TRUE(std::isnan(DecodeMoeElement(dtype, buf)));
  }
  unsigned char one;
  EncodeMoeElement(DType::kFp8E4M3, 1.0, &one);
  EXPECT_EQ(one, 0x38);  // exponent 7 (bias 7), mantissa 0
}

// A host-only exchange: each rank's send rows copied to its peers' receive
// blocks as the offsets say, as a correct collective would.
struct HostExchange {
  int n;
  DType dtype;
  std::vector<MoeExchange> x;
  std::vector<std::vector<unsigned char>> send, recv;

  HostExchange(Op op, const MoeShape& shape, int ranks)
      : n(ranks), dtype(MoeDType(shape).value()) {
    const size_t elem = DTypeSize(dtype);
    for (int r = 0; r < n; ++r) {
      x.push_back(BuildMoeExchange(op, shape, n, r).value());
      send.emplace_back(x[r].send_total * shape.hidden * elem);
      recv.emplace_back(x[r].recv_total * shape.hidden * elem, 0xFF);
      EXPECT_TRUE(
          FillMoeRows(dtype, x[r].send_ids, shape.hidden, send[r].data()).ok());
    }
    const size_t row = shape.hidden * elem;
    for (int s = 0; s < n; ++s) {
      for (int d = 0; d < n; ++d) {
        EXPECT_EQ(x[s].send_rows[d], x[d].recv_rows[s]);
        std::memcpy(recv[d].data() + x[d].recv_offset[s] * row,
                    send[s].data() + x[s].send_offset[d] * row,
                    x[s].send_rows[d] * row);
      }
    }
  }
  int64_t Wrong(Op op, int r) {
    return CountMoeWrong(op, dtype, r, x[r], recv[r].data()).value();
  }
};

TEST(MoeDataTest, ACorrectExchangeHasNothingWrongAndFaultsShow) {
  MoeShape shape;
  shape.tokens = 64;
  shape.hidden = 32;
  for (const char* dtype : {"bfloat16", "fp8_e4m3"}) {
    shape.dtype = dtype;
    for (Op op : {Op::kMoeDispatch, Op::kMoeCombine}) {
      SCOPED_TRACE(std::string(dtype) + " " + std::string(OpName(op)));
      HostExchange ex(op, shape, 3);
      for (int r = 0; r < 3; ++r) EXPECT_EQ(ex.Wrong(op, r), 0);
      const size_t elem = DTypeSize(ex.dtype);
      // One element corrupted (a value 1..8 never decodes to 0).
      std::memset(ex.recv[1].data() + 5 * elem, 0, elem);
      EXPECT_EQ(ex.Wrong(op, 1), 1);
      // A whole row lost (poisoned): every element of it.
      std::memset(ex.recv[2].data(), 0xFF, shape.hidden * elem);
      EXPECT_EQ(ex.Wrong(op, 2), shape.hidden);
    }
  }
}

// Dispatch checks every row against its source and token: two rows swapped
// show, though each holds a valid row.
TEST(MoeDataTest, SwappedRowsShow) {
  MoeShape shape;
  shape.tokens = 16;
  shape.hidden = 64;
  HostExchange ex(Op::kMoeDispatch, shape, 2);
  ASSERT_GE(ex.x[0].recv_total, 2u);
  const size_t row = shape.hidden * 2;
  std::vector<unsigned char> tmp(row);
  unsigned char* base = ex.recv[0].data();
  std::memcpy(tmp.data(), base, row);
  std::memcpy(base, base + row, row);
  std::memcpy(base + row, tmp.data(), row);
  EXPECT_GT(ex.Wrong(Op::kMoeDispatch, 0), shape.hidden);
  EXPECT_FALSE(CountMoeWrong(Op::kAllToAll, DType::kBfloat16, 0, ex.x[0],
                             ex.recv[0].data())
                   .ok());
  EXPECT_FALSE(FillMoeRows(DType::kFloat, {}, 1, nullptr).ok());
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::core
