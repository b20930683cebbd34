// The moe ops over real Gloo TCP on 127.0.0.1: dispatch and combine move
// every token's rows to and from its experts' ranks, checked, on 1 to 4
// ranks; a fully skewed routing (every token to rank 0, nothing between
// the others) works too.
#include <vector>

#include "absl/strings/str_cat.h"
#include "daemon/backend/collective_backend.h"
#include "daemon/core/moe_preset.h"
#include "daemon/core/moe_routing.h"
#include "daemon/core/sweep_spec.h"
#include "gtest/gtest.h"
#include "tests/unit/backend/gloo_test_ranks.h"

namespace fabricpulse::backend {
namespace {

using gloo_test::GlooRanks;
using gloo_test::kOpTimeout;
using gloo_test::OnAllRanks;

// Runs every step of `spec` on `n` ranks; returns each step's wrong count
// summed over the ranks.
std::vector<int64_t> RunAll(const core::SweepSpec& spec, int n) {
  std::vector<int64_t> wrong;
  absl::StatusOr<std::vector<core::Step>> steps = core::Expand(spec, n);
  EXPECT_TRUE(steps.ok()) << steps.status();
  if (!steps.ok()) return wrong;
  GlooRanks ranks(n);
  EXPECT_TRUE(ranks.ok());
  RunOptions options;
  options.warmup_iters = 1;
  options.iters = 2;
  options.check = true;
  options.op_timeout = kOpTimeout;
  for (const core::Step& step : *steps) {
    SCOPED_TRACE(core::OpName(step.op));
    auto outcomes = OnAllRanks(n, [&](int rank) {
      absl::Status reserved =
          ranks.comms[rank]->Reserve(core::MaxBufferBytes(*steps, n));
      if (!reserved.ok()) return absl::StatusOr<StepOutcome>(reserved);
      return ranks.comms[rank]->RunStep(step, options);
    });
    int64_t sum = 0;
    for (int rank = 0; rank < n; ++rank) {
      EXPECT_TRUE(outcomes[rank].ok())
          << "rank " << rank << ": " << outcomes[rank].status();
      if (!outcomes[rank].ok()) continue;
      EXPECT_EQ(outcomes[rank]->iterations, options.iters);
      sum += outcomes[rank]->wrong;
    }
    wrong.push_back(sum);
  }
  return wrong;
}

core::SweepSpec MoeSpec() {
  core::SweepSpec spec;
  spec.ops = {"moe_dispatch", "moe_combine"};
  spec.moe.tokens = 96;
  spec.moe.hidden = 128;
  spec.moe.topk = 3;
  spec.moe.experts_per_rank = 2;
  return spec;
}

class GlooMoeTest : public ::testing::TestWithParam<int> {};

TEST_P(GlooMoeTest, DispatchAndCombineDeliverEveryRow) {
  for (const char* dtype : {"bfloat16", "fp8_e4m3"}) {
    SCOPED_TRACE(dtype);
    core::SweepSpec spec = MoeSpec();
    spec.moe.topk = std::min(3, 2 * GetParam());
    spec.moe.dtype = dtype;
    EXPECT_EQ(RunAll(spec, GetParam()), (std::vector<int64_t>{0, 0}));
  }
}

INSTANTIATE_TEST_SUITE_P(Ranks, GlooMoeTest, ::testing::Values(1, 2, 3, 4),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return absl::StrCat(info.param, "ranks");
                         });

// Nearly every token to rank 0's one expert: most pairs of the other ranks
// exchange nothing (empty blocks on both sides).
TEST(GlooMoeSkewTest, EmptyBlocksWork) {
  core::SweepSpec spec = MoeSpec();
  spec.moe.tokens = 8;
  spec.moe.experts_per_rank = 1;
  spec.moe.topk = 1;
  spec.moe.skew = 4;
  const std::vector<uint64_t> rows = core::MoeRowMatrix(spec.moe, 4);
  int empty = 0;
  for (int s = 1; s < 4; ++s) {
    for (int d = 1; d < 4; ++d) empty += s != d && rows[s * 4 + d] == 0;
  }
  ASSERT_GT(empty, 3);
  EXPECT_EQ(RunAll(spec, 4), (std::vector<int64_t>{0, 0}));
}

// DeepEP's presets, reduced (16 tokens of 256), with the weighted combine:
// the low-latency rows (a row per selection, masked selections, fp8 with
// scales and a header, bf16 combine) and the normal ones (group-limited on
// 2 groups of 2 ranks) arrive whole, and the weighted sums are exact.
TEST(GlooMoePresetTest, ReducedPresetsAndTheWeightedCombine) {
  for (const char* preset : {"deepep-ll", "deepep-normal"}) {
    SCOPED_TRACE(preset);
    core::SweepSpec spec = MoeSpec();
    spec.ops = {"moe_dispatch", "moe_combine", "moe_combine_weighted"};
    spec.moe.tokens = 16;
    spec.moe.hidden = 256;
    spec.moe.experts_per_rank = 4;
    ASSERT_TRUE(
        core::ApplyMoePreset(
            preset, {"moe_tokens", "moe_hidden", "moe_experts"}, spec.moe)
            .ok());
    core::ResolveMoeForRanks(spec.moe, 4, {2, 2});
    spec.moe.topk_groups = std::min(spec.moe.topk_groups, 1);
    EXPECT_EQ(RunAll(spec, 4), (std::vector<int64_t>{0, 0, 0}));
  }
}

}  // namespace
}  // namespace fabricpulse::backend
