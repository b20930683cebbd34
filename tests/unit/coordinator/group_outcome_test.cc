// How a campaign's group sweep ends: its judged step, wrong data, and the
// results that mean "try again later" rather than a measurement.
#include "daemon/coordinator/group_outcome.h"

#include <cmath>

#include "daemon/coordinator/busy_gpus.h"
#include "gtest/gtest.h"

namespace fabricpulse::coordinator {
namespace {
namespace FP_UNITY_ID {

v1::SweepEvent Step(const std::string& op, uint64_t bytes, bool in_place,
                    double busbw, int64_t wrong = 0) {
  v1::SweepEvent e;
  v1::StepResult* r = e.mutable_result();
  r->mutable_step()->set_op(op);
  r->mutable_step()->set_bytes(bytes);
  r->mutable_step()->set_in_place(in_place);
  r->set_busbw_bytes_per_second(busbw);
  r->set_wrong(wrong);
  return e;
}

TEST(GroupOutcomeTest, JudgesTheOpsLargestSizeOutOfPlace) {
  GroupOutcome outcome("all_reduce");
  v1::SweepEvent started;
  started.mutable_started()->set_sweep_id("s-1");
  outcome.Take(started);
  outcome.Take(Step("all_reduce", 1 << 20, false, 1e9));
  outcome.Take(Step("all_reduce", 1 << 20, true, 2e9));
  outcome.Take(Step("all_reduce", 4 << 20, true, 3e9));
  outcome.Take(Step("all_reduce", 4 << 20, false, 4e9));
  outcome.Take(Step("all_gather", 64 << 20, false, 9e9));
  const core::GroupMeasurement m =
      outcome.Measurement(absl::OkStatus(), absl::FromUnixSeconds(5));
  EXPECT_TRUE(m.ok);
  EXPECT_FALSE(m.data_wrong);
  EXPECT_EQ(m.busbw, 4e9);
  EXPECT_EQ(m.sweep_id, "s-1");
  EXPECT_EQ(m.at, absl::FromUnixSeconds(5));
}

TEST(GroupOutcomeTest, WrongDataAnywhereMarksTheMeasurement) {
  GroupOutcome outcome("all_reduce");
  outcome.Take(Step("all_gather", 1 << 20, false, 1e9, /*wrong=*/3));
  outcome.Take(Step("all_reduce", 1 << 20, false, 1e9));
  EXPECT_TRUE(outcome.Measurement(absl::OkStatus(), absl::Now()).data_wrong);
}

TEST(GroupOutcomeTest, AFailedSweepIsAMeasurementWithoutItsStep) {
  GroupOutcome outcome("all_reduce");
  const core::GroupMeasurement m = outcome.Measurement(
      absl::DeadlineExceededError("rank 1 hung"), absl::Now());
  EXPECT_FALSE(m.ok);
  EXPECT_TRUE(std::isnan(m.busbw));
  EXPECT_EQ(m.error, "rank 1 hung");
  EXPECT_FALSE(GroupOutcome::HeldBack(absl::DeadlineExceededError("x")));
  EXPECT_FALSE(GroupOutcome::HeldBack(absl::OkStatus()));
}

TEST(GroupOutcomeTest, BusyAndPreemptedAreHeldBack) {
  EXPECT_TRUE(GroupOutcome::HeldBack(
      absl::ResourceExhaustedError("node a is busy with sweep s")));
  EXPECT_TRUE(GroupOutcome::HeldBack(GpusBusyError({{"a", 0, 1}})));
  EXPECT_TRUE(GroupOutcome::HeldBack(PreemptedError({"a", 0, 1})));
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::coordinator
