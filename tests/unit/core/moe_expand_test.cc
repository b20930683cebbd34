// The moe ops in a sweep: one step each at the spec's shape, whatever the
// size schedule; their checks and their buffers.
#include "daemon/core/auto_max_bytes.h"
#include "daemon/core/moe_routing.h"
#include "daemon/core/sweep_spec.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fabricpulse::core {
namespace {
namespace FP_UNITY_ID {

using ::testing::HasSubstr;

TEST(MoeExpandTest, OneStepPerMoeOpAtTheShape) {
  SweepSpec spec;
  spec.ops = {"all_reduce", "moe_dispatch", "moe_combine"};
  spec.min_bytes = 8;
  spec.max_bytes = 64;
  spec.moe.tokens = 128;
  spec.moe.hidden = 256;
  auto steps = Expand(spec, 4);
  ASSERT_TRUE(steps.ok()) << steps.status();
  // all_reduce: 8 .. 64 B, both placements (8 steps), then the two moe ops.
  ASSERT_EQ(steps->size(), 10u);
  for (int i : {8, 9}) {
    const Step& s = (*steps)[i];
    EXPECT_TRUE(IsMoe(s.op));
    EXPECT_EQ(s.index, i);
    EXPECT_EQ(s.dtype, DType::kBfloat16);  // not the spec's float
    EXPECT_EQ(s.count, 128u * 256);
    EXPECT_EQ(s.bytes, 128u * 256 * 2);
    EXPECT_FALSE(s.in_place);
    EXPECT_EQ(s.moe, spec.moe);
  }
  EXPECT_EQ(MaxBufferBytes(*steps, 4), MoeMaxBufferBytes(spec.moe, 4));
  spec.moe.dtype = "fp8_e4m3";
  steps = Expand(spec, 4);
  ASSERT_TRUE(steps.ok());
  EXPECT_EQ((*steps)[8].bytes, 128u * 256);
}

TEST(MoeExpandTest, BadShapesAndGraphAreRefusedOnlyWithMoeOps) {
  SweepSpec spec;
  spec.ops = {"moe_dispatch"};
  spec.moe.topk = 0;
  EXPECT_THAT(Expand(spec, 2).status().message(), HasSubstr("moe_topk: 0"));
  spec.ops = {"all_reduce"};
  EXPECT_TRUE(Expand(spec, 2).ok());  // the shape is not used
  spec.ops = {"moe_combine"};
  spec.moe = MoeShape();
  spec.graph = true;
  EXPECT_THAT(Expand(spec, 2).status().message(),
              HasSubstr("graph: not supported with the moe ops"));
}

// --max-bytes auto sizes the other ops and leaves the moe ops at their
// shape.
TEST(MoeExpandTest, MaxBytesAutoLeavesMoeOpsOut) {
  SweepSpec spec;
  spec.ops = {"all_reduce", "moe_dispatch"};
  spec.min_bytes = 1024;
  spec.max_bytes_auto.fraction = 0.5;
  spec.moe.tokens = 64;
  spec.moe.hidden = 64;
  auto resolved = Validate(spec, 2);
  ASSERT_TRUE(resolved.ok()) << resolved.status();
  ASSERT_TRUE(ResolveMaxBytesAuto(spec, *resolved, 2,
                                  {{0, 1ull << 20, "rank 0"}}, UINT64_MAX)
                  .ok());
  ASSERT_EQ(spec.max_bytes_auto.ops.size(), 1u);
  EXPECT_EQ(spec.max_bytes_auto.ops[0].op, "all_reduce");
  auto steps = Expand(spec, 2);
  ASSERT_TRUE(steps.ok()) << steps.status();
  EXPECT_EQ(steps->back().op, Op::kMoeDispatch);
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::core
