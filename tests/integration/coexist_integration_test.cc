// Coexistence with GPU jobs (issue 14, item 5), against the real
// coordinator, agent, worker and CLI binaries: a sweep is refused on a GPU
// that NVML shows in use by a foreign compute process unless --allow-busy,
// and a running sweep yields ("preempted", not a fault) when one appears.
// NVML is the stand-in libnvidia-ml.so.1 (fake_gpu_state.h), the foreign
// process a real `sleep`, and the agent's two Gloo ranks are accounted to
// GPUs 0 and 1 (--gloo-probe-gpus); everything else is the product's path.
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "tests/integration/background_sweep.h"
#include "tests/integration/fake_gpu_state.h"
#include "tests/integration/metrics_scrape.h"
#include "tests/integration/test_support.h"

namespace fabricpulse::testing {
namespace {
namespace FP_UNITY_ID {

class CoexistTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string dir = ::testing::TempDir() + "coexist.XXXXXX";
    ASSERT_NE(mkdtemp(dir.data()), nullptr);
    dir_ = dir;
    gpus_ = std::make_unique<FakeGpuState>(dir_, 2);
    client::LocalClusterOptions options;
    options.agents = 1;
    options.ranks = 2;
    options.env = gpus_->ClusterEnv();
    auto cluster = StartCluster(options);
    ASSERT_TRUE(cluster.ok()) << cluster.status();
    cluster_ = std::move(*cluster);
    stub_ = Connect(cluster_->coordinator());
    node_ = cluster_->NodeName(0);
  }
  void TearDown() override {
    stub_.reset();
    if (cluster_) cluster_->Stop();
    std::filesystem::remove_all(dir_);
  }

  // The agent's workers, as the coordinator lists them.
  std::vector<v1::WorkerInfo> Workers() {
    std::vector<v1::AgentInfo> agents = ListAgents(*stub_);
    if (agents.size() != 1) return {};
    return {agents[0].workers().begin(), agents[0].workers().end()};
  }
  // Our own workers' pids on each GPU (worker i runs on GPU i).
  std::vector<int64_t> OwnPid(int gpu) {
    for (const v1::WorkerInfo& w : Workers()) {
      if (w.gpu() == gpu) return {w.pid()};
    }
    ADD_FAILURE() << "no worker on GPU " << gpu;
    return {};
  }
  // Waits until the coordinator hears that `gpu` is busy (or free).
  bool WaitGpuBusy(int gpu, bool busy) {
    return Eventually(
        [&] {
          for (const v1::WorkerInfo& w : Workers()) {
            if (w.gpu() == gpu) return w.gpu_busy() == busy;
          }
          return false;
        },
        absl::Seconds(15));
  }
  std::vector<v1::SweepSummary> History() { return ListSweeps(*stub_); }
  v1::GetSweepResponse Stored(const std::string& id) {
    grpc::ClientContext ctx;
    ctx.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(10)));
    v1::GetSweepRequest req;
    req.set_sweep_id(id);
    v1::GetSweepResponse resp;
    EXPECT_TRUE(stub_->GetSweep(&ctx, req, &resp).ok()) << id;
    return resp;
  }
  std::string Scrape(const std::string& address) {
    auto text = ScrapeMetrics(address);
    EXPECT_TRUE(text.ok()) << text.status();
    return text.ok() ? *text : "";
  }
  double Sweeps(const std::string& text, const std::string& outcome) {
    return SeriesValue(
        text, absl::StrCat("fabricpulse_sweeps_total{outcome=\"", outcome,
                           "\",plan=\"adhoc\",trigger=\"cli\"}"));
  }
  // 11 Gloo steps of 50,000 iterations each (15 s on an idle machine,
  // minutes on a loaded one): still running whenever the test acts on it.
  static v1::SweepSpec LongSpec() {
    v1::SweepSpec spec = QuickSpec({"all_reduce"}, 8 << 10);
    spec.set_factor(2);
    spec.set_iters(50000);
    spec.set_check(false);
    spec.set_placement("out_of_place");
    spec.set_timeout_seconds(60);
    return spec;
  }
  std::vector<std::string> CliSweep(std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"--coordinator",
                                     cluster_->coordinator(),
                                     "sweep",
                                     "--ops",
                                     "all_reduce",
                                     "--max-bytes",
                                     "1K",
                                     "--iters",
                                     "2",
                                     "--warmup",
                                     "1"};
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  }

  std::string dir_;
  std::unique_ptr<FakeGpuState> gpus_;
  std::unique_ptr<client::LocalCluster> cluster_;
  std::unique_ptr<v1::CoordinatorService::Stub> stub_;
  std::string node_;
};

TEST_F(CoexistTest, OnDemandSweepIsRefusedOnABusyGpuAndNothingIsStored) {
  ForeignProcess job;
  gpus_->Set(0, {job.pid()});
  ASSERT_TRUE(WaitGpuBusy(0, true));
  const size_t before = History().size();

  CliResult r = RunCli(CliSweep(), 60);
  EXPECT_EQ(r.exit_code, 4) << r.err;  // busy
  EXPECT_TRUE(absl::StrContains(
      r.err,
      absl::StrCat("GPUs busy: node ", node_, " GPU 0 (1 other process)")))
      << r.err;
  EXPECT_TRUE(absl::StrContains(r.err, "--allow-busy")) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;

  SweepOutcome grpc = RunSweep(*stub_, QuickSpec({"all_reduce"}, 64));
  EXPECT_EQ(grpc.status.code(), absl::StatusCode::kResourceExhausted)
      << grpc.status;
  EXPECT_FALSE(grpc.started);
  EXPECT_EQ(History().size(), before);  // nothing recorded
}

TEST_F(CoexistTest, AllowBusyRunsOnABusyGpu) {
  ForeignProcess job;
  gpus_->Set(1, {job.pid()});
  ASSERT_TRUE(WaitGpuBusy(1, true));
  CliResult r = RunCli(CliSweep({"--allow-busy", "--output", "json"}), 60);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::vector<v1::SweepSummary> history = History();
  ASSERT_EQ(history.size(), 1u);
  EXPECT_EQ(history[0].status(), "succeeded");
}

TEST_F(CoexistTest, ForeignProcessMidSweepPreemptsItPromptlyAndIsNoFailure) {
  ASSERT_TRUE(RunSweep(*stub_, QuickSpec({"all_reduce"}, 64)).status.ok());
  const std::vector<v1::WorkerInfo> workers = Workers();
  ASSERT_EQ(workers.size(), 2u);
  ForeignProcess job;
  // Its ranks are in their first step once the communicator is ready.
  BackgroundSweep sweep(*stub_, LongSpec(), BackgroundSweep::kCommReady);
  ASSERT_TRUE(sweep.WaitStarted());
  // Mid-sweep: our own workers are listed too, as on a real GPU.
  const absl::Time appeared = absl::Now();
  gpus_->Set(0, OwnPid(0));
  gpus_->Set(1, {OwnPid(1)[0], job.pid()});
  SweepOutcome outcome = sweep.Join();
  const absl::Duration yield = sweep.ended() - appeared;
  std::printf(
      "yield: the sweep ended %.0f ms after the foreign process "
      "appeared in NVML\n",
      absl::ToDoubleMilliseconds(yield));
  EXPECT_LT(yield, absl::Seconds(3));
  EXPECT_EQ(outcome.status.code(), absl::StatusCode::kResourceExhausted)
      << outcome.status;
  EXPECT_EQ(outcome.finished.status(), "preempted");
  EXPECT_TRUE(absl::StrContains(outcome.finished.error(),
                                absl::StrCat("node ", node_, " GPU 1")))
      << outcome.finished.error();
  EXPECT_TRUE(outcome.finished.straggler().empty());

  // Stored as preempted (with any steps measured before the yield).
  v1::GetSweepResponse stored = Stored(sweep.sweep_id());
  EXPECT_EQ(stored.sweep().status(), "preempted");
  EXPECT_EQ(stored.sweep().error(), outcome.finished.error());
  CliResult results = RunCli({"--coordinator", cluster_->coordinator(),
                              "results", "--sweep", sweep.sweep_id()},
                             30);
  EXPECT_EQ(results.exit_code, 0) << results.err;
  EXPECT_TRUE(absl::StrContains(results.out, "preempted")) << results.out;
  CliResult diagnose = RunCli({"--coordinator", cluster_->coordinator(),
                               "diagnose", "--sweep", sweep.sweep_id()},
                              30);
  EXPECT_EQ(diagnose.exit_code, 0) << diagnose.err;
  EXPECT_TRUE(absl::StrContains(diagnose.out, "preempted at")) << diagnose.out;
  EXPECT_TRUE(absl::StrContains(diagnose.out, "not a fault")) << diagnose.out;

  // No failure counted: not a failed sweep, no hang, the plan's last sweep
  // still the good one; the workers were neither restarted nor killed.
  const std::string coordinator = Scrape(cluster_->coordinator_metrics());
  EXPECT_EQ(Sweeps(coordinator, "preempted"), 1);
  EXPECT_EQ(Sweeps(coordinator, "failed"), 0);
  EXPECT_EQ(Sweeps(coordinator, "succeeded"), 1);
  EXPECT_EQ(CountNonZeroSeries(coordinator, "fabricpulse_hangs_total"), 0);
  EXPECT_EQ(CountSeries(coordinator, "fabricpulse_hang_culprit"), 0);
  EXPECT_EQ(SeriesValue(coordinator,
                        "fabricpulse_last_sweep_success{plan=\"adhoc\"}"),
            1);
  const std::string agent = Scrape(cluster_->agent_metrics()[0]);
  const std::string label = absl::StrCat("{node=\"", node_, "\"}");
  EXPECT_EQ(
      SeriesValue(agent, "fabricpulse_agent_worker_restarts_total" + label), 0);
  EXPECT_EQ(
      SeriesValue(agent, "fabricpulse_agent_worker_abort_kills_total" + label),
      0);
  for (const v1::WorkerInfo& w : Workers()) {
    EXPECT_EQ(w.restarts(), 0);
    EXPECT_EQ(w.pid(), workers[w.local_index()].pid());  // not respawned
  }

  // The process goes: the next sweep runs and succeeds.
  gpus_->Set(1, OwnPid(1));
  ASSERT_TRUE(WaitGpuBusy(1, false));
  SweepOutcome next = RunSweep(*stub_, QuickSpec({"all_reduce"}, 64));
  EXPECT_TRUE(next.status.ok()) << next.status;
  EXPECT_EQ(next.finished.status(), "succeeded");
}

TEST_F(CoexistTest, PreemptedCliSweepExitsBusyWithOneLine) {
  ForeignProcess job;
  CliResult r;
  std::thread cli([&] {
    r = RunCli({"--coordinator", cluster_->coordinator(), "sweep", "--ops",
                "all_reduce", "--min-bytes", "8", "--max-bytes", "8K",
                "--iters", "50000", "--no-check", "--out-of-place", "--timeout",
                "60s", "--output", "json"},
               120);
  });
  // Recorded as running with its communicator ready: the ranks are in
  // their first step.
  const bool running = Eventually(
      [&] {
        std::vector<v1::SweepSummary> h = History();
        return !h.empty() && h[0].status() == "running" &&
               (h[0].comm_init_seconds() > 0 || h[0].comm_reused());
      },
      absl::Seconds(60));
  gpus_->Set(0, {job.pid()});
  cli.join();
  ASSERT_TRUE(running);
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_TRUE(absl::StrContains(
      r.err, absl::StrCat(" preempted: node ", node_, " GPU 0: ")))
      << r.err;
  EXPECT_TRUE(absl::StrContains(r.out, "\"status\": \"preempted\"")) << r.out;
}

TEST_F(CoexistTest, OwnWorkersOnTheGpusNeverPreempt) {
  // Our workers hold their GPUs' contexts between sweeps, so NVML lists
  // them; they are not foreign processes, whatever the probe polls.
  ASSERT_TRUE(RunSweep(*stub_, QuickSpec({"all_reduce"}, 64)).status.ok());
  const std::vector<int64_t> own0 = OwnPid(0), own1 = OwnPid(1);
  gpus_->Set(0, own0);
  gpus_->Set(1, own1);
  v1::SweepSpec spec = LongSpec();
  spec.set_iters(20);
  absl::Notification done;
  std::thread rewrite([&] {  // the file is replaced under the polls
    while (!done.WaitForNotificationWithTimeout(absl::Milliseconds(20))) {
      gpus_->Set(1, own1);
    }
  });
  // Sweeps back to back for at least 2 s of sweeping (20 polls at the
  // sweep interval), however fast this machine runs them.
  const absl::Time start = absl::Now();
  int sweeps = 0;
  while (absl::Now() - start < absl::Seconds(2) && sweeps < 200) {
    SweepOutcome outcome = RunSweep(*stub_, spec);
    ++sweeps;
    EXPECT_TRUE(outcome.status.ok()) << outcome.status;
    EXPECT_EQ(outcome.finished.status(), "succeeded");
    EXPECT_EQ(outcome.results.size(), 11u);
    if (!outcome.status.ok()) break;
  }
  done.Notify();
  rewrite.join();
  for (const v1::WorkerInfo& w : Workers()) EXPECT_FALSE(w.gpu_busy());
  const std::string agent = Scrape(cluster_->agent_metrics()[0]);
  for (int gpu : {0, 1}) {
    EXPECT_EQ(
        SeriesValue(agent, absl::StrCat("fabricpulse_agent_gpu_busy{gpu=\"",
                                        gpu, "\",node=\"", node_, "\"}")),
        0);
  }
}

TEST_F(CoexistTest, EachWorkersGpuMemoryIsExportedFromNvml) {
  // After a sweep our workers hold contexts; NVML lists them with their
  // memory (worker 0) or none at all (worker 1: released), beside a foreign
  // process whose memory is not ours.
  ASSERT_TRUE(RunSweep(*stub_, QuickSpec({"all_reduce"}, 64)).status.ok());
  ForeignProcess foreign;
  constexpr uint64_t kHeld = 1151336448;  // 1,098 MiB
  gpus_->SetWithMemory(
      0, {{OwnPid(0)[0], kHeld}, {foreign.pid(), uint64_t{7} << 30}});
  gpus_->Set(1, {});
  const std::string agent_metrics = cluster_->agent_metrics()[0];
  auto memory = [&](int worker, const std::string& text) {
    return SeriesValue(
        text,
        absl::StrCat("fabricpulse_agent_worker_gpu_memory_bytes{gpu=\"", worker,
                     "\",node=\"", node_, "\",worker=\"", worker, "\"}"));
  };
  std::string text;
  EXPECT_TRUE(Eventually(
      [&] {
        text = Scrape(agent_metrics);
        return memory(0, text) == static_cast<double>(kHeld) &&
               memory(1, text) == 0;
      },
      absl::Seconds(15)))
      << text;
}

TEST_F(CoexistTest, WorkerGpuMemoryWithoutAFigureIsAbsent) {
  // NVML lists our worker but reports no memory for it
  // (NVML_VALUE_NOT_AVAILABLE): no series, not a 0.
  ASSERT_TRUE(RunSweep(*stub_, QuickSpec({"all_reduce"}, 64)).status.ok());
  gpus_->SetWithMemory(0, {{OwnPid(0)[0], 4096}});
  const std::string agent_metrics = cluster_->agent_metrics()[0];
  const std::string series = absl::StrCat(
      "fabricpulse_agent_worker_gpu_memory_bytes{gpu=\"0\",node=\"", node_,
      "\",worker=\"0\"}");
  ASSERT_TRUE(Eventually(
      [&] { return SeriesValue(Scrape(agent_metrics), series) == 4096; },
      absl::Seconds(15)));
  gpus_->Set(0, OwnPid(0));
  EXPECT_TRUE(Eventually(
      [&] { return SeriesValue(Scrape(agent_metrics), series) == -1; },
      absl::Seconds(15)));
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::testing
