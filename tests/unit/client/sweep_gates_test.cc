// The sweep gates: --min-busbw with nccl-tests' rule (average over the
// op's steps, failing below 90% of the minimum), in the --bw-unit; bad
// values are one clear error; --fail-on-regression names the first step.
#include "client/commands/sweep_gates.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fabricpulse::client {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;

v1::StepResult Step(const std::string& op, uint64_t bytes, double busbw) {
  v1::StepResult r;
  r.mutable_step()->set_op(op);
  r.mutable_step()->set_bytes(bytes);
  r.set_time_seconds(1e-3);
  r.set_busbw_bytes_per_second(busbw);
  return r;
}

std::string ErrorOf(const std::vector<std::string>& values) {
  auto gates = ParseMinBusbw(values, BwUnit::kGBps);
  if (gates.ok()) return "OK";
  EXPECT_EQ(gates.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(gates.status().message());
}

TEST(SweepGatesTest, ParsesOpsAndUnits) {
  auto gates =
      ParseMinBusbw({"all_reduce=100", "allgather = 2.5"}, BwUnit::kGBps);
  ASSERT_TRUE(gates.ok()) << gates.status();
  ASSERT_EQ(gates->size(), 2u);
  EXPECT_EQ((*gates)[0].op, "all_reduce");
  EXPECT_EQ((*gates)[0].bytes_per_second, 100e9);
  EXPECT_EQ((*gates)[1].op, "all_gather");  // the alias, canonical
  EXPECT_EQ((*gates)[1].bytes_per_second, 2.5e9);
  gates = ParseMinBusbw({"all_reduce=80"}, BwUnit::kGbps);  // bits
  ASSERT_TRUE(gates.ok());
  EXPECT_EQ((*gates)[0].bytes_per_second, 10e9);
  EXPECT_THAT(*ParseMinBusbw({}, BwUnit::kGBps), IsEmpty());
}

TEST(SweepGatesTest, BadValuesAreOneClearError) {
  EXPECT_EQ(ErrorOf({"all_reduce"}),
            "--min-busbw: 'all_reduce': expected OP=VALUE, e.g. "
            "all_reduce=100");
  EXPECT_THAT(ErrorOf({"allreduse=1"}),
              HasSubstr("--min-busbw: 'allreduse=1': unknown op 'allreduse'; "
                        "allowed: "));
  EXPECT_EQ(ErrorOf({"all_reduce=-1"}),
            "--min-busbw: 'all_reduce=-1': '-1' is not a bandwidth; allowed: "
            "a number >= 0 in GB/s (--bw-unit)");
  EXPECT_THAT(ErrorOf({"all_reduce=fast"}), HasSubstr("'fast' is not a"));
  EXPECT_THAT(ErrorOf({"all_reduce=nan"}), HasSubstr("'nan' is not a"));
  EXPECT_THAT(ErrorOf({"all_reduce="}), HasSubstr("'' is not a"));
  EXPECT_EQ(ErrorOf({"all_reduce=1", "allreduce=2"}),
            "--min-busbw: 'allreduce=2': op 'all_reduce' is given twice");
}

TEST(SweepGatesTest, GateOpsMustBeSwept) {
  auto gates = ParseMinBusbw({"all_gather=1"}, BwUnit::kGBps);
  ASSERT_TRUE(gates.ok());
  EXPECT_TRUE(CheckGateOps(*gates, {"allgather", "all_reduce"}).ok());
  EXPECT_EQ(CheckGateOps(*gates, {"all_reduce"}).message(),
            "--min-busbw: op 'all_gather' is not among the sweep's ops "
            "(all_reduce)");
}

TEST(SweepGatesTest, MinBusbwComparesTheAverageLikeNcclTests) {
  auto gates = ParseMinBusbw({"all_reduce=10"}, BwUnit::kGBps);
  ASSERT_TRUE(gates.ok());
  // Average 9.5 GB/s (8 and 11) against 10: above 90%, passes; another op's
  // steps do not count.
  const std::vector<v1::StepResult> ok = {Step("all_reduce", 1024, 8e9),
                                          Step("all_reduce", 2048, 11e9),
                                          Step("alltoall", 1024, 1e3)};
  EXPECT_THAT(FailedMinBusbw(*gates, ok, BwUnit::kGBps), IsEmpty());
  // Average 8.5 GB/s: below 9, fails, naming measured and required.
  const std::vector<v1::StepResult> slow = {Step("all_reduce", 1024, 8e9),
                                            Step("all_reduce", 2048, 9e9)};
  const auto failed = FailedMinBusbw(*gates, slow, BwUnit::kGBps);
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0],
            "all_reduce: average busbw 8.5 GB/s over 2 step(s) is below the "
            "required 10 GB/s (--min-busbw; fails below 90%, as nccl-tests)");
  // A tiny minimum passes; an op with no step fails.
  EXPECT_THAT(
      FailedMinBusbw(*ParseMinBusbw({"all_reduce=0.000001"}, BwUnit::kGBps),
                     slow, BwUnit::kGBps),
      IsEmpty());
  EXPECT_THAT(FailedMinBusbw(*gates, {}, BwUnit::kGBps)[0],
              HasSubstr("all_reduce: no step measured, required 10 GB/s"));
}

TEST(SweepGatesTest, RegressionGateNamesTheFirstRegressedStep) {
  std::vector<v1::StepResult> results = {Step("all_reduce", 1024, 1e6),
                                         Step("all_reduce", 2048, 1e6)};
  EXPECT_EQ(FailedRegressionGate(results, BwUnit::kGBps), "");
  for (v1::StepResult& r : results) {
    r.set_baseline_sweeps(5);
    r.set_baseline_time_seconds(1e-4);
    r.set_baseline_busbw_bytes_per_second(1e7);
  }
  results[1].set_regression(true);
  EXPECT_EQ(FailedRegressionGate(results, BwUnit::kGBps),
            "1 step(s) regressed against their baseline "
            "(--fail-on-regression); first: all_reduce 2K out-of-place: time "
            "1000.0 us vs baseline 100.0 us (median of 5 sweeps)");
}

}  // namespace
}  // namespace fabricpulse::client
