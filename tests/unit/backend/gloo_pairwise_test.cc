// The pairwise op over real Gloo TCP on 127.0.0.1: every round of the
// matrix moves each pair's data both ways, checked, on 2 to 5 ranks.
#include <vector>

#include "absl/strings/str_cat.h"
#include "daemon/backend/collective_backend.h"
#include "daemon/core/pair_schedule.h"
#include "daemon/core/sweep_spec.h"
#include "gtest/gtest.h"
#include "tests/unit/backend/gloo_test_ranks.h"

namespace fabricpulse::backend {
namespace {

using gloo_test::GlooRanks;
using gloo_test::kOpTimeout;
using gloo_test::OnAllRanks;

class GlooPairwiseTest : public ::testing::TestWithParam<int> {};

TEST_P(GlooPairwiseTest, EveryRoundDeliversEachPairsData) {
  const int n = GetParam();
  core::SweepSpec spec;
  spec.ops = {"pairwise"};
  spec.min_bytes = 4096;
  spec.max_bytes = 4096;
  spec.dtype = "int32";
  absl::StatusOr<std::vector<core::Step>> steps = core::Expand(spec, n);
  ASSERT_TRUE(steps.ok()) << steps.status();
  ASSERT_EQ(steps->size(), static_cast<size_t>(core::PairRounds(n)));
  GlooRanks ranks(n);
  ASSERT_TRUE(ranks.ok());
  RunOptions options;
  options.warmup_iters = 1;
  options.iters = 3;
  options.check = true;
  options.op_timeout = kOpTimeout;
  for (const core::Step& step : *steps) {
    SCOPED_TRACE(absl::StrCat("round ", step.round));
    auto outcomes = OnAllRanks(n, [&](int rank) {
      absl::Status reserved =
          ranks.comms[rank]->Reserve(core::MaxBufferBytes(*steps, n));
      if (!reserved.ok()) return absl::StatusOr<StepOutcome>(reserved);
      return ranks.comms[rank]->RunStep(step, options);
    });
    for (int rank = 0; rank < n; ++rank) {
      ASSERT_TRUE(outcomes[rank].ok())
          << "rank " << rank << ": " << outcomes[rank].status();
      EXPECT_EQ(outcomes[rank]->wrong, 0) << "rank " << rank;
      EXPECT_EQ(outcomes[rank]->iterations, options.iters);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Ranks, GlooPairwiseTest, ::testing::Values(2, 3, 4, 5),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return absl::StrCat(info.param, "ranks");
                         });

}  // namespace
}  // namespace fabricpulse::backend
