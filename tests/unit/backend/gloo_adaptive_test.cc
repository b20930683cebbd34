// Communicator::AgreeMax and adaptive RunStep on the Gloo backend, 1 to 4
// ranks as threads of this process over real Gloo TCP on 127.0.0.1.
#include <algorithm>
#include <limits>
#include <memory>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/clock.h"
#include "daemon/backend/collective_backend.h"
#include "daemon/backend/gloo/gloo_backend.h"
#include "daemon/core/op_traits.h"
#include "gtest/gtest.h"
#include "tests/fakes/in_memory_kv_store.h"
#include "tests/unit/backend/gloo_test_ranks.h"
#include "tests/unit/core/adaptive_settings.h"

namespace fabricpulse::backend {
namespace {

using gloo_test::GlooRanks;
using gloo_test::kOpTimeout;
using gloo_test::OnAllRanks;

RunOptions Options() {
  RunOptions options;
  options.op_timeout = kOpTimeout;
  return options;
}

class GlooAgreeMaxTest : public ::testing::TestWithParam<int> {};

TEST_P(GlooAgreeMaxTest, EveryRankGetsTheElementWiseMaximum) {
  const int n = GetParam();
  GlooRanks ranks(n);
  ASSERT_TRUE(ranks.ok());
  auto& comms = ranks.comms;
  // Rank r proposes {r, -r, 10 - r, r == 1 ? inf : 0}; three rounds in a
  // row, as an adaptive step agrees after every batch.
  const double inf = std::numeric_limits<double>::infinity();
  auto agreed = OnAllRanks(n, [&](int r) {
    std::vector<absl::StatusOr<std::vector<double>>> rounds;
    for (int round = 0; round < 3; ++round) {
      rounds.push_back(comms[r]->AgreeMax(
          {1.0 * r + round, -1.0 * r, 10.0 - r, r == 1 ? inf : 0.0},
          Options()));
    }
    return rounds;
  });
  for (int r = 0; r < n; ++r) {
    for (int round = 0; round < 3; ++round) {
      ASSERT_TRUE(agreed[r][round].ok()) << agreed[r][round].status();
      EXPECT_EQ(*agreed[r][round], (std::vector<double>{n - 1.0 + round, 0, 10,
                                                        n > 1 ? inf : 0.0}))
          << "rank " << r << " round " << round;
    }
    EXPECT_FALSE(comms[r]->broken());
  }
}

INSTANTIATE_TEST_SUITE_P(Ranks, GlooAgreeMaxTest,
                         ::testing::Values(1, 2, 3, 4));

TEST(GlooAgreeMaxTest, BadCountIsRefusedAndLeavesItUsable) {
  GlooRanks ranks(1);
  ASSERT_TRUE(ranks.ok());
  auto& comms = ranks.comms;
  EXPECT_EQ(comms[0]->AgreeMax({}, Options()).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(
      comms[0]
          ->AgreeMax(std::vector<double>(kMaxAgreeValues + 1, 1.0), Options())
          .status()
          .code(),
      absl::StatusCode::kInvalidArgument);
  EXPECT_FALSE(comms[0]->broken());
  EXPECT_TRUE(comms[0]->AgreeMax({1, 2}, Options()).ok());
}

TEST(GlooAgreeMaxTest, APeerThatNeverComesIsBoundedByTheDeadline) {
  GlooRanks ranks(2);
  ASSERT_TRUE(ranks.ok());
  auto& comms = ranks.comms;
  RunOptions options = Options();
  options.op_timeout = absl::Milliseconds(300);
  const absl::Time start = absl::Now();
  absl::StatusOr<std::vector<double>> alone =
      comms[0]->AgreeMax({1}, options);  // rank 1 never joins
  EXPECT_EQ(alone.status().code(), absl::StatusCode::kDeadlineExceeded)
      << alone.status();
  EXPECT_LT(absl::Now() - start, absl::Seconds(10));
  EXPECT_TRUE(comms[0]->broken());
}

TEST(GlooAgreeMaxTest, AbortEndsAWaitingAgreement) {
  GlooRanks ranks(2);
  ASSERT_TRUE(ranks.ok());
  auto& comms = ranks.comms;
  absl::StatusOr<std::vector<double>> result;
  std::thread waiter([&] { result = comms[0]->AgreeMax({1}, Options()); });
  absl::SleepFor(absl::Milliseconds(100));
  comms[0]->Abort();
  waiter.join();
  EXPECT_EQ(result.status().code(), absl::StatusCode::kAborted)
      << result.status();
  EXPECT_EQ(comms[0]->AgreeMax({1}, Options()).status().code(),
            absl::StatusCode::kAborted);
}

core::Step AllReduceStep(int nranks, uint64_t bytes) {
  core::Step step;
  step.op = core::Op::kAllReduce;
  step.count = core::StepCount(step.op, bytes, 4, nranks);
  step.bytes = step.count * 4;
  step.root = -1;
  return step;
}

RunOptions AdaptiveRun(double tolerance, int min, int max,
                       absl::Duration cap = absl::Seconds(5)) {
  RunOptions options = Options();
  options.warmup_iters = 2;
  options.check = true;
  options.adaptive = core::AdaptiveSettings(tolerance, min, max, cap);
  return options;
}

class GlooAdaptiveStepTest : public ::testing::TestWithParam<int> {};

// Whatever each rank measures, every rank runs the same number of
// iterations, between min and max, and the data check still passes.
TEST_P(GlooAdaptiveStepTest, EveryRankRunsTheSameCount) {
  const int n = GetParam();
  GlooRanks ranks(n);
  ASSERT_TRUE(ranks.ok());
  auto& comms = ranks.comms;
  const core::Step step = AllReduceStep(n, 64 << 10);
  for (const RunOptions& options :
       {AdaptiveRun(0.05, 3, 60), AdaptiveRun(1e-6, 3, 17)}) {
    auto outcomes =
        OnAllRanks(n, [&](int r) { return comms[r]->RunStep(step, options); });
    ASSERT_TRUE(outcomes[0].ok()) << outcomes[0].status();
    const int count = outcomes[0]->iterations;
    EXPECT_GE(count, options.adaptive.min_iters);
    EXPECT_LE(count, options.adaptive.max_iters);
    for (int r = 0; r < n; ++r) {
      ASSERT_TRUE(outcomes[r].ok()) << outcomes[r].status();
      EXPECT_EQ(outcomes[r]->iterations, count) << "rank " << r;
      EXPECT_EQ(outcomes[r]->iteration_seconds.size(),
                static_cast<size_t>(count));
      EXPECT_EQ(outcomes[r]->wrong, 0);
      EXPECT_TRUE(outcomes[r]->timed_one_by_one);
      EXPECT_TRUE(outcomes[r]->arrival_seconds.has_value());
    }
    // A tolerance no timing meets runs to max.
    if (options.adaptive.tolerance < 1e-3) {
      EXPECT_EQ(count, 17) << ::testing::PrintToString(
          outcomes[0]->iteration_seconds);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Ranks, GlooAdaptiveStepTest,
                         ::testing::Values(1, 2, 3));

TEST(GlooAdaptiveStepTest, TimeCapEndsANeverConvergingStep) {
  constexpr int kRanks = 2;
  GlooRanks ranks(kRanks);
  ASSERT_TRUE(ranks.ok());
  auto& comms = ranks.comms;
  const core::Step step = AllReduceStep(kRanks, 1 << 20);
  // Rank 1 enters every other op 2 ms late: noisy, never within 1e-6, and
  // the cap (100 ms) ends it long before max.
  auto outcomes = OnAllRanks(kRanks, [&](int r) {
    RunOptions options = AdaptiveRun(1e-6, 4, 100000, absl::Milliseconds(100));
    if (r == 1) {
      options.late_entry = absl::Milliseconds(2);
      options.late_every = 2;
    }
    return comms[r]->RunStep(step, options);
  });
  ASSERT_TRUE(outcomes[0].ok()) << outcomes[0].status();
  ASSERT_TRUE(outcomes[1].ok()) << outcomes[1].status();
  EXPECT_EQ(outcomes[0]->iterations, outcomes[1]->iterations);
  EXPECT_GE(outcomes[0]->iterations, 4);
  EXPECT_LT(outcomes[0]->iterations, 1000);
}

TEST(GlooAdaptiveStepTest, InvalidSettingsAreRefused) {
  GlooRanks ranks(1);
  ASSERT_TRUE(ranks.ok());
  auto& comms = ranks.comms;
  absl::StatusOr<StepOutcome> outcome =
      comms[0]->RunStep(AllReduceStep(1, 1024), AdaptiveRun(0.01, 1, 10));
  EXPECT_EQ(outcome.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(outcome.status().message().find("min_iters"),
            absl::string_view::npos)
      << outcome.status();
}

}  // namespace
}  // namespace fabricpulse::backend
