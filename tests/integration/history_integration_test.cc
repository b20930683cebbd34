// History and plans against real processes: sweeps survive a kill -9 of the
// coordinator, the interrupted one is marked as such, plans run by name
// and get baselines, a bad config stops the coordinator at start.
#include <fstream>
#include <thread>

#include "absl/strings/match.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "daemon/common/process.h"
#include "daemon/core/regression.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "tests/integration/test_support.h"

namespace fabricpulse::testing {
namespace {

// A plan small enough for CPU ranks; its schedule never fires in a test.
constexpr char kConfig[] = R"(timezone: UTC
baseline:
  window: 5
  min_sweeps: 2
  threshold: 0.9
plans:
  quick:
    ops: [all_reduce, alltoall]
    min_bytes: 1K
    max_bytes: 16K
    factor: 4
    iters: 3
    warmup: 1
schedules:
  - name: yearly
    plan: quick
    cron: "0 0 1 1 *"
)";

std::string WriteFile(const std::string& dir, const std::string& name,
                      const std::string& text) {
  const std::string path = dir + "/" + name;
  std::ofstream(path) << text;
  return path;
}

std::unique_ptr<client::LocalCluster> StartWithConfig(const std::string& dir) {
  client::LocalClusterOptions options;
  options.bin_dir = BinDir();
  options.agents = 1;
  options.ranks = 2;
  options.config_file = WriteFile(dir, "config.yaml", kConfig);
  auto cluster = StartCluster(options);
  EXPECT_TRUE(cluster.ok()) << cluster.status();
  return cluster.ok() ? std::move(*cluster) : nullptr;
}

std::string TempDir() {
  char dir[] = "/tmp/fabricpulse-test-XXXXXX";
  return mkdtemp(dir) != nullptr ? dir : "/tmp";
}

SweepOutcome RunPlan(v1::CoordinatorService::Stub& stub,
                     const std::string& plan) {
  v1::SweepSpec empty;
  SweepOutcome outcome;
  grpc::ClientContext ctx;
  ctx.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(60)));
  v1::SweepRequest req;
  req.set_plan(plan);
  auto reader = stub.RunSweep(&ctx, req);
  v1::SweepEvent event;
  while (reader->Read(&event)) {
    if (event.has_started()) outcome.start = event.started();
    if (event.has_result()) outcome.results.push_back(event.result());
    if (event.has_finished()) outcome.finished = event.finished();
  }
  grpc::Status s = reader->Finish();
  outcome.status = absl::Status(static_cast<absl::StatusCode>(s.error_code()),
                                s.error_message());
  return outcome;
}

TEST(HistoryTest, PlansRunByNameAndGetBaselines) {
  const std::string dir = TempDir();
  auto cluster = StartWithConfig(dir);
  ASSERT_NE(cluster, nullptr);
  auto stub = Connect(cluster->coordinator());
  SweepOutcome first = RunPlan(*stub, "quick");
  ASSERT_TRUE(first.status.ok()) << first.status;
  EXPECT_EQ(first.start.plan(), "quick");
  EXPECT_EQ(first.start.spec().iters(), 3);
  for (const auto& r : first.results) {
    EXPECT_EQ(r.baseline_busbw_bytes_per_second(), 0);  // no history yet
  }
  SweepOutcome second = RunPlan(*stub, "quick");
  ASSERT_TRUE(second.status.ok()) << second.status;
  ASSERT_EQ(second.results.size(), first.results.size());
  for (const auto& r : second.results) {
    // One earlier sweep is not a baseline (min_sweeps: 2).
    EXPECT_EQ(r.baseline_sweeps(), 0);
    EXPECT_EQ(r.baseline_busbw_bytes_per_second(), 0);
    EXPECT_FALSE(r.regression());
  }
  SweepOutcome third = RunPlan(*stub, "quick");
  ASSERT_TRUE(third.status.ok()) << third.status;
  ASSERT_EQ(third.results.size(), first.results.size());
  core::RegressionRule rule;
  rule.min_sweeps = 2;
  rule.threshold = 0.9;
  for (size_t i = 0; i < third.results.size(); ++i) {
    // The baseline is the median of the two good sweeps before.
    const v1::StepResult& r = third.results[i];
    const std::vector<core::BaselineSample> samples = {
        {first.results[i].time_seconds(),
         first.results[i].busbw_bytes_per_second()},
        {second.results[i].time_seconds(),
         second.results[i].busbw_bytes_per_second()}};
    const core::RegressionVerdict want =
        core::JudgeStep(rule, r.step().bytes(), r.time_seconds(),
                        r.busbw_bytes_per_second(), samples);
    EXPECT_EQ(r.baseline_sweeps(), 2);
    EXPECT_DOUBLE_EQ(r.baseline_time_seconds(), want.median_time_seconds);
    EXPECT_DOUBLE_EQ(r.baseline_busbw_bytes_per_second(), want.median_busbw);
    EXPECT_EQ(r.regression(), want.regression);
  }
  SweepOutcome unknown = RunPlan(*stub, "nope");
  EXPECT_EQ(unknown.status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(unknown.status.message(), "quick"));

  CliResult r = RunCli({"--coordinator", cluster->coordinator(), "results",
                        "--sweep", third.finished.sweep_id()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(absl::StrContains(r.out, third.finished.sweep_id()));
  EXPECT_TRUE(absl::StrContains(r.out, "# alltoall"));
}

TEST(HistoryTest, CoordinatorKillNineLosesNoFinishedSweep) {
  const std::string dir = TempDir();
  auto cluster = StartWithConfig(dir);
  ASSERT_NE(cluster, nullptr);
  auto stub = Connect(cluster->coordinator());
  std::vector<std::string> finished;
  for (int i = 0; i < 2; ++i) {
    SweepOutcome o = RunSweep(*stub, QuickSpec({"all_reduce"}, 1024));
    ASSERT_TRUE(o.status.ok()) << o.status;
    finished.push_back(o.finished.sweep_id());
  }
  // A sweep that is still running when the coordinator dies.
  v1::SweepSpec slow = QuickSpec({"all_reduce"}, 8 << 20);
  slow.set_min_bytes(8 << 20);
  slow.set_iters(100000);
  slow.set_check(false);
  absl::Notification started;
  std::string running_id;
  std::thread runner([&] {
    grpc::ClientContext ctx;
    ctx.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(60)));
    v1::SweepRequest req;
    *req.mutable_spec() = slow;
    auto reader = stub->RunSweep(&ctx, req);
    v1::SweepEvent event;
    while (reader->Read(&event)) {
      if (event.has_started()) {
        running_id = event.started().sweep_id();
        started.Notify();
      }
    }
    reader->Finish();
    if (!started.HasBeenNotified()) started.Notify();
  });
  ASSERT_TRUE(started.WaitForNotificationWithTimeout(absl::Seconds(30)));
  ASSERT_TRUE(cluster->CrashAndRestartCoordinator().ok());
  runner.join();
  // Agents register again with the new coordinator.
  ASSERT_TRUE(cluster->WaitReady(1, absl::Seconds(30)).ok());
  stub = Connect(cluster->coordinator());

  std::map<std::string, std::string> status;
  for (const auto& s : ListSweeps(*stub)) status[s.sweep_id()] = s.status();
  EXPECT_EQ(status[finished[0]], "succeeded");
  EXPECT_EQ(status[finished[1]], "succeeded");
  EXPECT_EQ(status[running_id], "interrupted");

  // The workers are freed (their agent aborted them when the coordinator
  // vanished) and the next sweep passes; allow the abort to drain.
  SweepOutcome next;
  const absl::Time deadline = absl::Now() + absl::Seconds(30);
  do {
    next = RunSweep(*stub, QuickSpec({"all_reduce"}, 1024));
  } while (!next.status.ok() && absl::Now() < deadline &&
           next.status.code() != absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(next.status.ok()) << next.status;

  CliResult r = RunCli(
      {"--coordinator", cluster->coordinator(), "results", "--output", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(absl::StrContains(r.out, "\"status\": \"interrupted\""));
}

TEST(HistoryTest, AOneMinuteScheduleStartsARealSweep) {
  const std::string dir = TempDir();
  client::LocalClusterOptions options;
  options.bin_dir = BinDir();
  options.agents = 1;
  options.ranks = 2;
  std::string config = kConfig;
  config.replace(config.find("0 0 1 1 *"), 9, "* * * * *");
  options.config_file = WriteFile(dir, "config.yaml", config);
  auto cluster = StartCluster(options);
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  auto stub = Connect((*cluster)->coordinator());
  // It fires at the next full minute: wait (bounded) for its sweep.
  const bool ran = Eventually(
      [&] {
        for (const auto& s : ListSweeps(*stub)) {
          if (s.trigger() == "schedule:yearly" && s.plan() == "quick" &&
              s.status() == "succeeded") {
            return true;
          }
        }
        return false;
      },
      absl::Seconds(90));
  EXPECT_TRUE(ran) << "no scheduled sweep succeeded within 90 s";
}

TEST(HistoryTest, BadConfigStopsTheCoordinatorNamingLineAndField) {
  const std::string dir = TempDir();
  const std::string config =
      WriteFile(dir, "bad.yaml",
                "plans:\n  quick:\n    ops: [all_reduce]\n    iters: 0\n");
  const std::string ports = dir + "/ports";
  common::SpawnOptions spawn;
  spawn.argv = {BinDir() + "/fabricpulse-coordinator",
                "--listen",
                "127.0.0.1:0",
                "--metrics-listen",
                "127.0.0.1:0",
                "--state-dir",
                dir + "/state",
                "--config",
                config,
                "--port-file",
                ports,
                "--insecure"};
  spawn.log_file = dir + "/log";
  auto pid = common::Spawn(spawn);
  ASSERT_TRUE(pid.ok());
  auto exit = common::WaitForExit(*pid, absl::Seconds(20));
  ASSERT_TRUE(exit.has_value());
  EXPECT_EQ(exit->exit_code, 2);
  std::ifstream in(dir + "/log");
  std::string log((std::istreambuf_iterator<char>(in)),
                  std::istreambuf_iterator<char>());
  EXPECT_TRUE(absl::StrContains(log, "line 4")) << log;
  EXPECT_TRUE(absl::StrContains(log, "plans.quick.iters")) << log;
  // Nothing was started: no port file.
  EXPECT_FALSE(std::ifstream(ports).good());
}

}  // namespace
}  // namespace fabricpulse::testing
