// ListPlans and ListSchedules answers: from a parsed config and the
// scheduler's own state (driven with fixed times through Tick), with the
// answer's size bound.
#include "daemon/coordinator/config_listing.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/fakes/fake_schedule_target.h"

namespace fabricpulse::coordinator {
namespace {
namespace FP_UNITY_ID {

constexpr char kConfig[] = R"(baseline:
  window: 7
  min_sweeps: 3
  threshold: 0.85
plans:
  quick:
    ops: [all_reduce, alltoall]
    min_bytes: 1K
    max_bytes: 16K
    factor: 4
    iters: 3
    nodes: [node-a, node-b]
  adaptive:
    ops: [all_gather]
    iters: auto
    tolerance: 0.02
    max_bytes: auto:0.5
schedules:
  - name: hourly
    plan: quick
    cron: "0 * * * *"
  - name: nightly
    plan: adaptive
    cron: "30 2 * * *"
    timezone: Europe/Paris
    allow_busy_gpus: true
)";

core::CoordinatorConfig Config() {
  auto config = core::ParseCoordinatorConfig(kConfig);
  EXPECT_TRUE(config.ok()) << config.status();
  return config.ok() ? *config : core::CoordinatorConfig{};
}

absl::Time At(int hour, int minute) {
  return absl::FromCivil(absl::CivilMinute(2026, 11, 30, hour, minute),
                         absl::UTCTimeZone());
}

double Unix(absl::Time t) {
  return absl::ToDoubleSeconds(t - absl::UnixEpoch());
}

TEST(ListPlansAnswerTest, EveryPlanWithItsSpecNodesAndTheRegressionRule) {
  const v1::ListPlansResponse answer = ListPlansAnswer(Config());
  EXPECT_EQ(answer.regression().baseline_window(), 7);
  EXPECT_EQ(answer.regression().baseline_min_sweeps(), 3);
  EXPECT_DOUBLE_EQ(answer.regression().threshold(), 0.85);
  ASSERT_EQ(answer.plans_size(), 2);
  EXPECT_EQ(answer.left_out(), 0);
  // By name.
  const v1::PlanInfo& adaptive = answer.plans(0);
  EXPECT_EQ(adaptive.name(), "adaptive");
  EXPECT_TRUE(adaptive.nodes().empty());  // every live agent
  EXPECT_TRUE(adaptive.spec().has_adaptive());
  EXPECT_DOUBLE_EQ(adaptive.spec().adaptive().tolerance(), 0.02);
  EXPECT_DOUBLE_EQ(adaptive.spec().max_bytes_auto().fraction(), 0.5);
  const v1::PlanInfo& quick = answer.plans(1);
  EXPECT_EQ(quick.name(), "quick");
  ASSERT_EQ(quick.spec().ops_size(), 2);
  EXPECT_EQ(quick.spec().ops(1), "alltoall");
  EXPECT_EQ(quick.spec().min_bytes(), 1024u);
  EXPECT_EQ(quick.spec().max_bytes(), 16384u);
  EXPECT_EQ(quick.spec().iters(), 3);
  EXPECT_EQ(quick.spec().dtype(), "float");  // core's default
  ASSERT_EQ(quick.nodes_size(), 2);
  EXPECT_EQ(quick.nodes(1), "node-b");
}

TEST(ListPlansAnswerTest, NoConfigNoPlans) {
  const v1::ListPlansResponse answer =
      ListPlansAnswer(core::CoordinatorConfig{});
  EXPECT_EQ(answer.plans_size(), 0);
  EXPECT_EQ(answer.regression().baseline_window(),
            core::kDefaultBaselineWindow);
}

TEST(ListPlansAnswerTest, StopsAtTheListBoundAndCountsTheRest) {
  core::CoordinatorConfig config;
  // Three plans of ~6.5 MB of node names each: two fit in 16 MiB.
  for (const char* name : {"a", "b", "c"}) {
    core::PlanConfig plan;
    plan.name = name;
    plan.nodes.assign(100000, std::string(64, 'n'));
    config.plans[name] = plan;
  }
  const v1::ListPlansResponse answer = ListPlansAnswer(config);
  EXPECT_EQ(answer.plans_size(), 2);
  EXPECT_EQ(answer.left_out(), 1);
  EXPECT_LE(answer.ByteSizeLong(), core::kMaxListResponseBytes);
}

TEST(ListSchedulesAnswerTest, SchedulerStateAndLastRuns) {
  fakes::FakeScheduleTarget target;
  v1::AgentInfo agent;
  agent.set_node_name("node-a");
  v1::WorkerInfo* worker = agent.add_workers();
  worker->set_gpu(0);
  target.SetAgents({agent});
  core::CoordinatorConfig config = Config();
  Scheduler scheduler(config.schedules, &target, absl::Seconds(5), At(1, 10));
  // Before anything fired: the next firings, nothing pending.
  std::map<std::string, SweepRecord> newest;
  v1::ListSchedulesResponse before =
      ListSchedulesAnswer(scheduler.Snapshot(), newest);
  ASSERT_EQ(before.schedules_size(), 2);
  const v1::ScheduleInfo& hourly = before.schedules(0);  // file order
  EXPECT_EQ(hourly.name(), "hourly");
  EXPECT_EQ(hourly.plan(), "quick");
  EXPECT_EQ(hourly.cron(), "0 * * * *");
  EXPECT_EQ(hourly.timezone(), "UTC");
  EXPECT_FALSE(hourly.allow_busy_gpus());
  EXPECT_DOUBLE_EQ(hourly.next_unix_seconds(), Unix(At(2, 0)));
  EXPECT_FALSE(hourly.pending());
  EXPECT_FALSE(hourly.has_last_run());
  const v1::ScheduleInfo& nightly = before.schedules(1);
  EXPECT_EQ(nightly.timezone(), "Europe/Paris");
  EXPECT_TRUE(nightly.allow_busy_gpus());
  // 02:30 in Paris (UTC+1 in November) is 01:30 UTC.
  EXPECT_DOUBLE_EQ(nightly.next_unix_seconds(), Unix(At(1, 30)));

  // The hourly firing meets a busy GPU: it waits, as the scheduler says.
  worker->set_gpu_busy(true);
  worker->set_gpu_other_processes(1);
  target.SetAgents({agent});
  scheduler.Tick(At(2, 0));
  SweepRecord run;
  run.id = "sweep-7";
  run.status = "succeeded";
  run.started = At(1, 30);
  run.finished = At(1, 31);
  newest[ScheduleTrigger("nightly")] = run;
  newest[ScheduleTrigger("gone")] = run;  // a schedule no longer configured
  v1::ListSchedulesResponse after =
      ListSchedulesAnswer(scheduler.Snapshot(), newest);
  ASSERT_EQ(after.schedules_size(), 2);
  EXPECT_TRUE(after.schedules(0).pending());
  EXPECT_EQ(after.schedules(0).waiting_on(), kDeferredGpuBusy);
  EXPECT_DOUBLE_EQ(after.schedules(0).next_unix_seconds(), Unix(At(3, 0)));
  EXPECT_FALSE(after.schedules(0).has_last_run());
  // Nightly allows busy GPUs: it ran (the fake's run succeeds).
  EXPECT_FALSE(after.schedules(1).pending());
  EXPECT_EQ(after.schedules(1).waiting_on(), "");
  ASSERT_TRUE(after.schedules(1).has_last_run());
  EXPECT_EQ(after.schedules(1).last_run().sweep_id(), "sweep-7");
  EXPECT_EQ(after.schedules(1).last_run().status(), "succeeded");
  EXPECT_DOUBLE_EQ(after.schedules(1).last_run().started_unix_seconds(),
                   Unix(At(1, 30)));
  EXPECT_DOUBLE_EQ(after.schedules(1).last_run().finished_unix_seconds(),
                   Unix(At(1, 31)));
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::coordinator
