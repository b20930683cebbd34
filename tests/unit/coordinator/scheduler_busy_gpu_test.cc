// The scheduler's busy-GPU hold: a fake membership (FakeScheduleTarget) and
// fixed times through Scheduler::Tick; no thread, no sleep.
#include <string>
#include <vector>

#include "daemon/coordinator/busy_gpus.h"
#include "daemon/coordinator/scheduler.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/fakes/fake_schedule_target.h"

namespace fabricpulse::coordinator {
namespace {
namespace FP_UNITY_ID {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

absl::Time At(int hour, int minute, int second = 0) {
  return absl::FromCivil(absl::CivilSecond(2026, 11, 30, hour, minute, second),
                         absl::UTCTimeZone());
}

core::ScheduleConfig Schedule(const std::string& name, const char* cron,
                              bool allow_busy_gpus = false) {
  core::ScheduleConfig s;
  s.name = name;
  s.plan = "quick";
  auto parsed = core::CronSchedule::Parse(cron, "UTC");
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  s.cron = *parsed;
  s.allow_busy_gpus = allow_busy_gpus;
  return s;
}

v1::AgentInfo Agent(const std::string& node, std::vector<int> gpus) {
  v1::AgentInfo a;
  a.set_node_name(node);
  for (int i = 0; i < static_cast<int>(gpus.size()); ++i) {
    v1::WorkerInfo* w = a.add_workers();
    w->set_local_index(i);
    w->set_gpu(gpus[i]);
    w->set_ready(true);
  }
  return a;
}

class SchedulerBusyGpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    target_.SetAgents({Agent("gpu-a", {0, 1}), Agent("gpu-b", {0, 1})});
  }
  fakes::FakeScheduleTarget target_;
  const absl::Duration retry_ = absl::Seconds(5);
};

TEST(BusyGpusTest, FindsEachBusyGpuOnceAndDescribesIt) {
  v1::AgentInfo a = Agent("gpu-a", {0, 1, 1});
  a.mutable_workers(1)->set_gpu_busy(true);
  a.mutable_workers(1)->set_gpu_other_processes(2);
  a.mutable_workers(2)->set_gpu_busy(true);  // same GPU, second worker
  a.mutable_workers(2)->set_gpu_other_processes(2);
  v1::AgentInfo b = Agent("gpu-b", {3});
  b.mutable_workers(0)->set_gpu_busy(true);
  b.mutable_workers(0)->set_gpu_other_processes(1);
  v1::AgentInfo cpu = Agent("cpu-c", {-1});
  const std::vector<BusyGpu> busy = FindBusyGpus({a, b, cpu});
  ASSERT_EQ(busy.size(), 2u);
  EXPECT_EQ(busy[0].node, "gpu-a");
  EXPECT_EQ(busy[0].gpu, 1);
  EXPECT_EQ(DescribeBusyGpus(busy),
            "node gpu-a GPU 1 (2 other processes), node gpu-b GPU 3 (1 other "
            "process)");
  EXPECT_EQ(DescribeBusyGpus(busy, 1),
            "node gpu-a GPU 1 (2 other processes), and 1 more");
  EXPECT_THAT(FindBusyGpus({Agent("gpu-a", {0})}), IsEmpty());
}

TEST_F(SchedulerBusyGpuTest, NotDueDoesNothing) {
  Scheduler scheduler({Schedule("hourly", "0 * * * *")}, &target_, retry_,
                      At(2, 10));
  EXPECT_EQ(scheduler.Tick(At(2, 30)), At(3, 0));
  EXPECT_THAT(target_.runs(), IsEmpty());
  EXPECT_THAT(target_.busy_asks(), IsEmpty());
}

TEST_F(SchedulerBusyGpuTest, FreeGpusRunAtOnce) {
  Scheduler scheduler({Schedule("hourly", "0 * * * *")}, &target_, retry_,
                      At(2, 10));
  EXPECT_EQ(scheduler.Tick(At(3, 0)), At(4, 0));
  EXPECT_THAT(target_.runs(), ElementsAre("hourly"));
  EXPECT_THAT(target_.deferred(), IsEmpty());
}

TEST_F(SchedulerBusyGpuTest, BusyGpuHoldsTheFiringUntilFreeCountedOnce) {
  Scheduler scheduler({Schedule("hourly", "0 * * * *")}, &target_, retry_,
                      At(2, 10));
  target_.SetGpuBusy("gpu-b", 1, 1);
  // Due, held back: retried after busy_retry, not run.
  EXPECT_EQ(scheduler.Tick(At(3, 0)), At(3, 0, 5));
  EXPECT_THAT(target_.runs(), IsEmpty());
  EXPECT_THAT(target_.deferred(), ElementsAre("hourly:gpu_busy"));
  // Still busy at the retries: counted once per firing, not per retry.
  EXPECT_EQ(scheduler.Tick(At(3, 0, 5)), At(3, 0, 10));
  EXPECT_EQ(scheduler.Tick(At(3, 0, 10)), At(3, 0, 15));
  EXPECT_THAT(target_.runs(), IsEmpty());
  EXPECT_THAT(target_.deferred(), ElementsAre("hourly:gpu_busy"));
  // The other process ends: the queued firing runs once.
  target_.SetGpuBusy("gpu-b", 1, 0);
  EXPECT_EQ(scheduler.Tick(At(3, 0, 15)), At(4, 0));
  EXPECT_THAT(target_.runs(), ElementsAre("hourly"));
  EXPECT_EQ(scheduler.Tick(At(3, 30)), At(4, 0));
  EXPECT_THAT(target_.runs(), ElementsAre("hourly"));
}

TEST_F(SchedulerBusyGpuTest, FiringsMissedWhileBusyCollapseButAreCounted) {
  Scheduler scheduler({Schedule("minutely", "* * * * *")}, &target_, retry_,
                      At(2, 0));
  target_.SetGpuBusy("gpu-a", 0, 3);
  scheduler.Tick(At(2, 1));
  scheduler.Tick(At(2, 1, 5));
  scheduler.Tick(At(2, 2));  // the next firing, still busy
  EXPECT_THAT(target_.runs(), IsEmpty());
  EXPECT_THAT(target_.deferred(),
              ElementsAre("minutely:gpu_busy", "minutely:gpu_busy"));
  target_.SetGpuBusy("gpu-a", 0, 0);
  scheduler.Tick(At(2, 2, 5));
  EXPECT_THAT(target_.runs(), ElementsAre("minutely"));  // one run, not two
}

TEST_F(SchedulerBusyGpuTest, AllowBusyGpusRunsWithoutAsking) {
  Scheduler scheduler({Schedule("hourly", "0 * * * *", true)}, &target_, retry_,
                      At(2, 10));
  target_.SetGpuBusy("gpu-a", 1, 1);
  scheduler.Tick(At(3, 0));
  EXPECT_THAT(target_.busy_asks(), IsEmpty());
  EXPECT_THAT(target_.runs(), ElementsAre("hourly"));
  EXPECT_THAT(target_.deferred(), IsEmpty());
}

TEST_F(SchedulerBusyGpuTest, MembersBusyHoldsWithItsOwnReason) {
  Scheduler scheduler({Schedule("hourly", "0 * * * *")}, &target_, retry_,
                      At(2, 10));
  target_.QueueRunResult(absl::ResourceExhaustedError("node gpu-a is busy"));
  target_.QueueRunResult(absl::ResourceExhaustedError("node gpu-a is busy"));
  EXPECT_EQ(scheduler.Tick(At(3, 0)), At(3, 0, 5));
  EXPECT_EQ(scheduler.Tick(At(3, 0, 5)), At(3, 0, 10));
  EXPECT_THAT(target_.deferred(), ElementsAre("hourly:members_busy"));
  // Then a GPU turns busy: a new reason, counted once more.
  target_.SetGpuBusy("gpu-a", 0, 1);
  scheduler.Tick(At(3, 0, 10));
  EXPECT_THAT(target_.deferred(),
              ElementsAre("hourly:members_busy", "hourly:gpu_busy"));
  target_.SetGpuBusy("gpu-a", 0, 0);
  EXPECT_EQ(scheduler.Tick(At(3, 0, 15)), At(4, 0));
  EXPECT_THAT(target_.runs(), ElementsAre("hourly", "hourly", "hourly"));
}

// The GPU turned busy after the last heartbeat (the orchestrator refuses
// it), or the sweep was preempted mid-run: neither is a failed run; the
// firing stays queued as gpu_busy and runs again once the GPUs are free.
TEST_F(SchedulerBusyGpuTest, RefusedOrPreemptedRunsStayQueuedAsGpuBusy) {
  Scheduler scheduler({Schedule("hourly", "0 * * * *")}, &target_, retry_,
                      At(2, 10));
  target_.QueueRunResult(GpusBusyError({{"gpu-a", 0, 1}}));
  target_.QueueRunResult(PreemptedError({"gpu-a", 0, 1}));
  EXPECT_EQ(scheduler.Tick(At(3, 0)), At(3, 0, 5));
  EXPECT_EQ(scheduler.Tick(At(3, 0, 5)), At(3, 0, 10));
  EXPECT_THAT(target_.deferred(), ElementsAre("hourly:gpu_busy"));
  EXPECT_EQ(scheduler.Tick(At(3, 0, 10)), At(4, 0));  // then it succeeds
  EXPECT_THAT(target_.runs(), ElementsAre("hourly", "hourly", "hourly"));
}

TEST(BusyGpusTest, RefusalAndPreemptionAreMarkedApart) {
  const absl::Status refused = GpusBusyError({{"gpu-a", 1, 2}});
  EXPECT_EQ(refused.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(refused.message(),
            "GPUs busy: node gpu-a GPU 1 (2 other processes) (compute "
            "processes that are not FabricPulse workers, as NVML lists "
            "them); the sweep was not started; --allow-busy runs it anyway");
  EXPECT_TRUE(IsGpuBusy(refused));
  EXPECT_FALSE(IsPreempted(refused));
  const absl::Status preempted = PreemptedError({"gpu-b", 3, 1});
  EXPECT_EQ(preempted.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(preempted.message(),
            "node gpu-b GPU 3: a compute process that is not a FabricPulse "
            "worker appeared (1 other process, NVML); the sweep yielded to "
            "it (not a fault; --allow-busy does not yield)");
  EXPECT_TRUE(IsGpuBusy(preempted));
  EXPECT_TRUE(IsPreempted(preempted));
  // Members busy with another sweep, or the same text from elsewhere: not
  // marked.
  EXPECT_FALSE(IsGpuBusy(absl::ResourceExhaustedError("node gpu-a is busy")));
  EXPECT_FALSE(IsPreempted(absl::ResourceExhaustedError(preempted.message())));
}

TEST_F(SchedulerBusyGpuTest, MembershipErrorDoesNotHoldTheRunReportsIt) {
  Scheduler scheduler({Schedule("hourly", "0 * * * *")}, &target_, retry_,
                      At(2, 10));
  target_.FailMembership(absl::UnavailableError("no live agent"));
  target_.QueueRunResult(absl::UnavailableError("no live agent"));
  EXPECT_EQ(scheduler.Tick(At(3, 0)), At(4, 0));  // the firing ends
  EXPECT_THAT(target_.runs(), ElementsAre("hourly"));
  EXPECT_THAT(target_.deferred(), IsEmpty());
}

TEST_F(SchedulerBusyGpuTest, OneBusyScheduleDoesNotHoldAnother) {
  Scheduler scheduler(
      {Schedule("strict", "0 * * * *"), Schedule("lenient", "0 * * * *", true)},
      &target_, retry_, At(2, 10));
  target_.SetGpuBusy("gpu-b", 0, 1);
  EXPECT_EQ(scheduler.Tick(At(3, 0)), At(3, 0, 5));
  EXPECT_THAT(target_.runs(), ElementsAre("lenient"));
  EXPECT_THAT(target_.deferred(), ElementsAre("strict:gpu_busy"));
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::coordinator
