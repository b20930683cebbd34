// The stop rule of adaptive iteration counts and its statistics, on
// deterministic inputs.
#include "daemon/core/adaptive_iters.h"

#include <cmath>
#include <limits>
#include <vector>

#include "daemon/core/sweep_spec.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/core/adaptive_settings.h"

namespace fabricpulse::core {
namespace {
namespace FP_UNITY_ID {

using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr double kInf = std::numeric_limits<double>::infinity();

BatchProposal Agreed(double half_width, double elapsed = 0.1,
                     double per_iteration = 0.001) {
  return {half_width, elapsed, per_iteration};
}

TEST(StudentTTest, TableAndExpansionAgree) {
  EXPECT_DOUBLE_EQ(StudentT975(1), 12.7062);
  EXPECT_DOUBLE_EQ(StudentT975(4), 2.7764);
  EXPECT_DOUBLE_EQ(StudentT975(30), 2.0423);
  // Published values beyond the table: 40 -> 2.0211, 60 -> 2.0003,
  // 120 -> 1.9799; the limit is the normal quantile.
  EXPECT_NEAR(StudentT975(31), 2.0395, 1e-4);
  EXPECT_NEAR(StudentT975(40), 2.0211, 1e-4);
  EXPECT_NEAR(StudentT975(60), 2.0003, 1e-4);
  EXPECT_NEAR(StudentT975(120), 1.9799, 1e-4);
  EXPECT_NEAR(StudentT975(1000000), 1.95996, 1e-4);
  EXPECT_EQ(StudentT975(0), kInf);
}

TEST(RelativeHalfWidthTest, HandComputed) {
  // Mean 10, s = sqrt(((1)^2 + 0 + 1) / 2) = 1, n = 3:
  // 4.3027 * 1 / sqrt(3) / 10 = 0.24841.
  EXPECT_NEAR(RelativeHalfWidth({9, 10, 11}, 0), 0.248417, 1e-5);
  EXPECT_EQ(RelativeHalfWidth({5, 5, 5, 5}, 0), 0);
  EXPECT_EQ(RelativeHalfWidth({0, 0}, 0), 0);
  EXPECT_EQ(RelativeHalfWidth({1}, 0), kInf);
  EXPECT_EQ(RelativeHalfWidth({}, 0), kInf);
  EXPECT_EQ(RelativeHalfWidth({-1, 1}, 0), kInf);  // mean 0 with spread
}

// Samples that read the same tick bound the mean only to the tick: a
// spread of tick / sqrt(12) (rounding's alone) stands in for the zero one.
// The bug this guards: two 661 ns Gloo ops on a 1 ns clock "converged" to
// a tolerance of 1e-6 after 3 iterations.
TEST(RelativeHalfWidthTest, EqualTicksAreNotAnExactMean) {
  const double tick = 1e-9;
  const double rounding = tick / std::sqrt(12.0);
  // n = 2: t(1) = 12.7062.
  EXPECT_NEAR(RelativeHalfWidth({661e-9, 661e-9}, tick),
              12.7062 * rounding / std::sqrt(2.0) / 661e-9, 1e-6);
  EXPECT_GT(RelativeHalfWidth({661e-9, 661e-9}, tick), 1e-3);
  // A real spread wider than rounding's is used as it is.
  EXPECT_NEAR(RelativeHalfWidth({9, 10, 11}, tick), 0.248417, 1e-5);
  // Long ops: the floor is far below any tolerance a user sets.
  EXPECT_LT(RelativeHalfWidth({1e-3, 1e-3, 1e-3, 1e-3}, tick), 1e-5);
  EXPECT_EQ(RelativeHalfWidth({0, 0}, tick), kInf);  // mean 0
}

TEST(ProposalTest, RoundTripsThroughValues) {
  const BatchProposal p{0.02, 1.5, 0.003};
  const std::vector<double> values = ProposalToValues(p);
  ASSERT_EQ(values.size(), static_cast<size_t>(kProposalValues));
  const BatchProposal back = ProposalFromValues(values);
  EXPECT_EQ(back.relative_half_width, 0.02);
  EXPECT_EQ(back.elapsed_seconds, 1.5);
  EXPECT_EQ(back.seconds_per_iteration, 0.003);
  EXPECT_EQ(ProposalFromValues({}).elapsed_seconds, 0);
}

TEST(DecideNextBatchTest, ConvergedStopsAtMin) {
  const BatchDecision d =
      DecideNextBatch(AdaptiveSettings(), 5, false, Agreed(0.004));
  EXPECT_EQ(d.reason, StopReason::kConverged);
  // Exactly at the tolerance counts as within it.
  EXPECT_EQ(DecideNextBatch(AdaptiveSettings(), 5, false, Agreed(0.01)).reason,
            StopReason::kConverged);
}

TEST(DecideNextBatchTest, NeverConvergedBelowMin) {
  const BatchDecision d =
      DecideNextBatch(AdaptiveSettings(0.01, 8), 5, false, Agreed(0.0));
  EXPECT_EQ(d.reason, StopReason::kContinue);
}

TEST(DecideNextBatchTest, PredictsTheIterationsTheIntervalNeeds) {
  // Half-width 1.3x the tolerance after 10: 10 * 1.69 = 16.9 -> 7 more.
  BatchDecision d =
      DecideNextBatch(AdaptiveSettings(), 10, false, Agreed(0.013));
  EXPECT_EQ(d.reason, StopReason::kContinue);
  EXPECT_EQ(d.next_batch, 7);
  // Far off (or unknown): at most double what ran.
  d = DecideNextBatch(AdaptiveSettings(), 10, false, Agreed(0.5));
  EXPECT_EQ(d.next_batch, 10);
  d = DecideNextBatch(AdaptiveSettings(), 10, false, Agreed(kInf));
  EXPECT_EQ(d.next_batch, 10);
  // Just above: at least one.
  d = DecideNextBatch(AdaptiveSettings(), 10, false, Agreed(0.01001));
  EXPECT_EQ(d.next_batch, 1);
}

TEST(DecideNextBatchTest, BatchMeansRunMinItersEachTime) {
  const BatchDecision d =
      DecideNextBatch(AdaptiveSettings(0.01, 5), 15, true, Agreed(0.015));
  EXPECT_EQ(d.reason, StopReason::kContinue);
  EXPECT_EQ(d.next_batch, 5);
}

TEST(DecideNextBatchTest, MaxItersStopsAndCutsTheLastBatch) {
  EXPECT_EQ(
      DecideNextBatch(AdaptiveSettings(0.01, 5, 40), 40, false, Agreed(0.5))
          .reason,
      StopReason::kMaxIters);
  const BatchDecision d =
      DecideNextBatch(AdaptiveSettings(0.01, 5, 40), 35, false, Agreed(0.5));
  EXPECT_EQ(d.reason, StopReason::kContinue);
  EXPECT_EQ(d.next_batch, 5);
  // Converged wins over max at the same count.
  EXPECT_EQ(
      DecideNextBatch(AdaptiveSettings(0.01, 5, 40), 40, false, Agreed(0.001))
          .reason,
      StopReason::kConverged);
}

TEST(DecideNextBatchTest, TimeCapStopsAndCutsTheBatch) {
  const AdaptiveIters a = AdaptiveSettings(0.01, 5, 100, absl::Seconds(1));
  EXPECT_EQ(DecideNextBatch(a, 10, false, Agreed(0.5, 1.0, 0.1)).reason,
            StopReason::kTimeCap);
  EXPECT_EQ(DecideNextBatch(a, 10, false, Agreed(0.5, 1.2, 0.1)).reason,
            StopReason::kTimeCap);
  // 0.15 s left, 0.1 s an iteration: one more fits.
  BatchDecision d = DecideNextBatch(a, 10, false, Agreed(0.5, 0.85, 0.1));
  EXPECT_EQ(d.reason, StopReason::kContinue);
  EXPECT_EQ(d.next_batch, 1);
  // 0.05 s left: none fits.
  d = DecideNextBatch(a, 10, false, Agreed(0.5, 0.95, 0.1));
  EXPECT_EQ(d.reason, StopReason::kTimeCap);
}

TEST(DecideNextBatchTest, SameInputsSameDecision) {
  // Every rank decides from the agreed maxima and the shared count.
  const BatchProposal agreed = Agreed(0.0173, 0.42, 0.0031);
  const BatchDecision a =
      DecideNextBatch(AdaptiveSettings(), 12, false, agreed);
  const BatchDecision b =
      DecideNextBatch(AdaptiveSettings(), 12, false, agreed);
  EXPECT_EQ(a.reason, b.reason);
  EXPECT_EQ(a.next_batch, b.next_batch);
}

TEST(ValidateAdaptiveTest, OffChecksNothing) {
  AdaptiveIters a;
  a.tolerance = -1;
  EXPECT_TRUE(ValidateAdaptive(a, true).ok());
}

void ExpectInvalid(const AdaptiveIters& a, bool graph,
                   const std::string& prefix, const std::string& part) {
  const absl::Status status = ValidateAdaptive(a, graph);
  ASSERT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_THAT(std::string(status.message()), StartsWith(prefix));
  EXPECT_THAT(std::string(status.message()), HasSubstr(part));
}

TEST(ValidateAdaptiveTest, BadValuesNameTheFieldAndRange) {
  EXPECT_TRUE(ValidateAdaptive(AdaptiveSettings(), false).ok());
  ExpectInvalid(AdaptiveSettings(0), false, "tolerance: 0 is out of range",
                "more than 0, up to 0.5");
  ExpectInvalid(AdaptiveSettings(0.6), false, "tolerance: 0.6 is out of range",
                "more than 0, up to 0.5");
  ExpectInvalid(AdaptiveSettings(std::nan("")), false, "tolerance: nan",
                "up to 0.5");
  ExpectInvalid(AdaptiveSettings(0.01, 1), false,
                "min_iters: 1 is out of range", "2 to 1000000");
  ExpectInvalid(AdaptiveSettings(0.01, 10, 9), false,
                "max_iters: 9 is out of range", "min_iters (10) to 1000000");
  ExpectInvalid(AdaptiveSettings(0.01, 5, kMaxIters + 1), false,
                "max_iters: 1000001 is out of range", "to 1000000");
  ExpectInvalid(AdaptiveSettings(0.01, 5, 100, absl::ZeroDuration()), false,
                "step_time_cap: 0 is out of range", "more than 0s, up to 1h");
  ExpectInvalid(AdaptiveSettings(0.01, 5, 100, absl::Hours(2)), false,
                "step_time_cap: 2h is out of range", "up to 1h");
  ExpectInvalid(AdaptiveSettings(), true,
                "graph: CUDA-graph mode cannot run with "
                "adaptive iterations",
                "adaptive");
  EXPECT_TRUE(
      ValidateAdaptive(AdaptiveSettings(0.5, 2, 2, absl::Hours(1)), false)
          .ok());
}

TEST(ValidateAdaptiveTest, ThroughSweepSpecValidate) {
  SweepSpec spec;
  spec.adaptive = AdaptiveSettings(0.01, 0);
  spec.iters = 0;  // ignored in adaptive mode
  absl::StatusOr<ResolvedSpec> resolved = Validate(spec, 2);
  ASSERT_FALSE(resolved.ok());
  EXPECT_THAT(std::string(resolved.status().message()),
              StartsWith("min_iters: 0 is out of range"));
  spec.adaptive.min_iters = 5;
  EXPECT_TRUE(Validate(spec, 2).ok());
  spec.graph = true;
  resolved = Validate(spec, 2);
  ASSERT_FALSE(resolved.ok());
  EXPECT_THAT(std::string(resolved.status().message()), StartsWith("graph: "));
}

TEST(OpsPerStepBoundTest, CoversAdaptiveBatches) {
  SweepSpec spec;  // 5 warm-ups, 20 iterations
  EXPECT_EQ(OpsPerStepBound(spec), 27);
  spec.adaptive = AdaptiveSettings(0.01, 5, 100);
  EXPECT_EQ(OpsPerStepBound(spec), 5 + 300 + 2);
}

TEST(DescribeAdaptiveTest, NamesTheSettings) {
  EXPECT_EQ(DescribeAdaptive(AdaptiveIters{}), "");
  EXPECT_EQ(DescribeAdaptive(AdaptiveSettings()),
            "iters auto (tolerance 0.01, min 5, max 100, cap 2s)");
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::core
