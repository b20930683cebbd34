// How the CLI shows a step against its baseline: latency-bound steps by
// time (never "0.00 GB/s vs 0.00 GB/s"), others by busbw; the table lists
// regressed steps, JSON carries the baseline or null.
#include "client/output/baseline_comparison.h"

#include <sstream>

#include "client/output/result_printer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fabricpulse::client {
namespace {
namespace FP_UNITY_ID {

using ::testing::HasSubstr;
using ::testing::Not;

// all_reduce on 4 ranks (busbw factor 1.5), judged against a baseline of
// `baseline_seconds` over 5 sweeps when > 0.
v1::StepResult Step(uint64_t bytes, double seconds, double baseline_seconds,
                    bool regression) {
  v1::StepResult r;
  r.mutable_step()->set_op("all_reduce");
  r.mutable_step()->set_bytes(bytes);
  r.mutable_step()->set_count(bytes / 4);
  r.mutable_step()->set_dtype("float");
  r.set_time_seconds(seconds);
  r.set_algbw_bytes_per_second(bytes / seconds);
  r.set_busbw_bytes_per_second(1.5 * bytes / seconds);
  if (baseline_seconds > 0) {
    r.set_baseline_sweeps(5);
    r.set_baseline_time_seconds(baseline_seconds);
    r.set_baseline_busbw_bytes_per_second(1.5 * bytes / baseline_seconds);
  }
  r.set_regression(regression);
  return r;
}

TEST(BaselineComparisonTest, LatencyBoundStepsCompareTimes) {
  const v1::StepResult r = Step(1024, 512e-6, 48.2e-6, true);
  EXPECT_TRUE(JudgedOnTime(r));
  EXPECT_EQ(DescribeComparison(r, BwUnit::kGBps),
            "all_reduce 1K out-of-place: time 512.0 us vs baseline 48.20 us "
            "(median of 5 sweeps)");
}

TEST(BaselineComparisonTest, BandwidthBoundStepsCompareBusbw) {
  const v1::StepResult r = Step(64 << 20, 0.1, 0.01, true);
  EXPECT_FALSE(JudgedOnTime(r));
  const std::string text = DescribeComparison(r, BwUnit::kGBps);
  EXPECT_THAT(text, HasSubstr("busbw 1.01 GB/s vs baseline 10.07 GB/s"));
  EXPECT_THAT(DescribeComparison(Step(1024, 1e-4, 0, false), BwUnit::kGBps),
              HasSubstr(": no baseline yet"));
}

TEST(BaselineComparisonTest, TheTableListsRegressedStepsByTime) {
  OutputOptions options;
  std::ostringstream out;
  auto printer = ResultPrinter::Create(options, out);
  v1::SweepSpec spec;
  spec.add_ops("all_reduce");
  spec.set_placement("out_of_place");
  printer->Begin(spec, v1::SweepStarted());
  printer->Add(Step(1024, 512e-6, 48.2e-6, true));
  printer->Add(Step(2048, 50e-6, 49e-6, false));
  v1::SweepFinished finished;
  finished.set_status("succeeded");
  printer->Finish(finished);
  const std::string text = out.str();
  EXPECT_THAT(text, HasSubstr("# 1 step(s) regressed against their baseline:\n"
                              "#   all_reduce 1K out-of-place: time 512.0 us "
                              "vs baseline 48.20 us"));
  EXPECT_THAT(text, Not(HasSubstr("2K out-of-place")));
  EXPECT_THAT(text, Not(HasSubstr("0.00 GB/s vs")));
}

TEST(BaselineComparisonTest, NoRegressionNoList) {
  OutputOptions options;
  std::ostringstream out;
  auto printer = ResultPrinter::Create(options, out);
  printer->Begin(v1::SweepSpec(), v1::SweepStarted());
  printer->Add(Step(1024, 50e-6, 48.2e-6, false));
  printer->Finish(v1::SweepFinished());
  EXPECT_THAT(out.str(), Not(HasSubstr("regressed")));
}

TEST(BaselineComparisonTest, JsonCarriesTheBaselineOrNull) {
  OutputOptions options;
  options.format = OutputFormat::kJson;
  std::ostringstream out;
  auto printer = ResultPrinter::Create(options, out);
  printer->Begin(v1::SweepSpec(), v1::SweepStarted());
  printer->Add(Step(1024, 512e-6, 48.2e-6, true));
  printer->Add(Step(2048, 50e-6, 0, false));
  printer->Finish(v1::SweepFinished());
  const std::string text = out.str();
  EXPECT_THAT(text,
              HasSubstr("\"regression\": true,\n"
                        "          \"baseline_noisy\": false,\n"
                        "          \"baseline_sweeps\": 5,\n"
                        "          \"judged_on\": \"time\",\n"
                        "          \"baseline_time_seconds\": 4.82e-05,\n"));
  EXPECT_THAT(text,
              HasSubstr("\"regression\": false,\n"
                        "          \"baseline_noisy\": null,\n"
                        "          \"baseline_sweeps\": 0,\n"
                        "          \"judged_on\": null,\n"
                        "          \"baseline_time_seconds\": null,\n"
                        "          \"baseline_busbw_bytes_per_second\": null,\n"
                        "          \"iterations\": null\n"));
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::client
