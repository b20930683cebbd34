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

// What `thresholds` match on: the judged op and size, the members' slowest
// path and their first GPU model.
TEST(GroupOutcomeTest, TheJudgedStepNamesItsOpSizePathAndGpuModel) {
  auto node = [](const std::string& name, int gpus) {
    v1::AgentInfo a;
    a.set_node_name(name);
    for (int g = 0; g < gpus; ++g) {
      v1::WorkerInfo* w = a.add_workers();
      w->set_gpu(g);
      w->set_gpu_model("NVIDIA H200");
      for (int p = 0; p < gpus; ++p) {
        if (p != g) w->add_nvlink_peers(p);
      }
    }
    return a;
  };
  GroupOutcome pair("all_reduce", {node("a", 2), node("b", 2)});
  pair.Take(Step("all_reduce", 1 << 30, false, 4e10));
  core::JudgedStep step =
      pair.Measurement(absl::OkStatus(), absl::FromUnixSeconds(5)).step;
  EXPECT_EQ(step.op, "all_reduce");
  EXPECT_EQ(step.bytes, 1u << 30);
  EXPECT_EQ(step.path, "network");
  EXPECT_EQ(step.gpu_model, "NVIDIA H200");
  GroupOutcome alone("all_reduce", {node("a", 2)});
  EXPECT_EQ(
      alone.Measurement(absl::OkStatus(), absl::FromUnixSeconds(5)).step.path,
      "nvlink");
  v1::AgentInfo cpu;
  cpu.set_node_name("c");
  cpu.add_workers()->set_gpu(-1);
  cpu.add_workers()->set_gpu(-1);
  const core::JudgedStep cpus =
      GroupOutcome("all_reduce", {cpu})
          .Measurement(absl::OkStatus(), absl::FromUnixSeconds(5))
          .step;
  EXPECT_EQ(cpus.path, "pcie_shm");
  EXPECT_EQ(cpus.gpu_model, "");
  EXPECT_EQ(cpus.bytes, 0u);  // not measured
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::coordinator
