// An operator's abort is not a fault (issue 12, item 7), against real
// processes (2 agents x 2 Gloo ranks): the workers return from the abort of
// a large transfer without being killed, and a worker the agent still has
// to kill after a requested abort is counted apart from restarts; a worker
// killed by its PID is a restart (the fault still fires).
#include <signal.h>

#include <map>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "tests/integration/background_sweep.h"
#include "tests/integration/metrics_scrape.h"
#include "tests/integration/test_support.h"

namespace fabricpulse::testing {
namespace {

// Each node's restart and abort-kill counters, and each worker's pid and
// WorkerInfo.restarts.
struct Health {
  std::map<std::string, double> restarts_total;
  std::map<std::string, double> abort_kills_total;
  std::map<std::string, std::vector<v1::WorkerInfo>> workers;
};

class AbortTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cluster_ = StartCluster(2, 2);
    ASSERT_NE(cluster_, nullptr);
    stub_ = Connect(cluster_->coordinator());
    ASSERT_TRUE(RunSweep(*stub_, QuickSpec({"all_reduce"}, 64)).status.ok());
  }

  Health Read() {
    Health h;
    for (int i = 0; i < 2; ++i) {
      const std::string node = cluster_->NodeName(i);
      auto text = ScrapeMetrics(cluster_->agent_metrics()[i]);
      EXPECT_TRUE(text.ok()) << text.status();
      if (!text.ok()) continue;
      const std::string label = absl::StrCat("{node=\"", node, "\"}");
      h.restarts_total[node] =
          SeriesValue(*text, "fabricpulse_agent_worker_restarts_total" + label);
      h.abort_kills_total[node] = SeriesValue(
          *text, "fabricpulse_agent_worker_abort_kills_total" + label);
    }
    for (const v1::AgentInfo& a : ListAgents(*stub_)) {
      h.workers[a.node_name()] = {a.workers().begin(), a.workers().end()};
    }
    return h;
  }

  // Waits until every worker is ready again.
  bool AllReady() {
    return Eventually(
        [&] {
          int ready = 0;
          for (const v1::AgentInfo& a : ListAgents(*stub_)) {
            for (const v1::WorkerInfo& w : a.workers()) ready += w.ready();
          }
          return ready == 4;
        },
        absl::Seconds(30));
  }

  // One step that moves 64 MiB per op for minutes: an abort once the
  // communicator is ready lands on large transfers in flight.
  static v1::SweepSpec LargeBroadcast() {
    v1::SweepSpec spec = QuickSpec({"broadcast"}, 64 << 20);
    spec.set_min_bytes(64 << 20);
    spec.set_iters(100000);
    spec.set_check(false);
    spec.set_placement("out_of_place");
    return spec;
  }

  std::unique_ptr<client::LocalCluster> cluster_;
  std::unique_ptr<v1::CoordinatorService::Stub> stub_;
};

TEST_F(AbortTest, RequestedAbortReturnsPromptlyAndCountsNoRestart) {
  const Health before = Read();
  for (const auto& [node, value] : before.restarts_total) {
    ASSERT_GE(value, 0) << node << ": restarts_total series absent";
    ASSERT_GE(before.abort_kills_total.at(node), 0)
        << node << ": abort_kills_total series absent";
  }
  BackgroundSweep sweep(*stub_, LargeBroadcast(), BackgroundSweep::kCommReady);
  ASSERT_TRUE(sweep.WaitStarted());
  CliResult abort = RunCli({"--coordinator", cluster_->coordinator(), "abort"});
  EXPECT_EQ(abort.exit_code, 0) << abort.err;
  SweepOutcome outcome = sweep.Join();
  EXPECT_EQ(outcome.finished.status(), "aborted") << outcome.status;

  // No worker was killed: same pids, same restarts, no kill of any kind.
  const Health after = Read();
  EXPECT_EQ(after.restarts_total, before.restarts_total);
  EXPECT_EQ(after.abort_kills_total, before.abort_kills_total);
  for (const auto& [node, workers] : before.workers) {
    ASSERT_EQ(after.workers.at(node).size(), workers.size());
    for (size_t i = 0; i < workers.size(); ++i) {
      SCOPED_TRACE(absl::StrCat(node, " worker ", i));
      EXPECT_EQ(after.workers.at(node)[i].pid(), workers[i].pid());
      EXPECT_EQ(after.workers.at(node)[i].restarts(), workers[i].restarts());
    }
  }
  SweepOutcome next = RunSweep(*stub_, QuickSpec({"all_reduce", "alltoall"}));
  EXPECT_TRUE(next.status.ok()) << next.status;
  EXPECT_EQ(next.finished.status(), "succeeded");
}

// A stopped worker cannot return from the requested abort: the agent kills
// and respawns it, counted in abort_kills_total, not as a restart.
TEST_F(AbortTest, WorkerKilledAfterARequestedAbortIsNotARestart) {
  const Health before = Read();
  const v1::WorkerInfo victim = before.workers.at(cluster_->NodeName(1))[1];
  ASSERT_GT(victim.pid(), 0);  // never kill(0, ...)
  BackgroundSweep sweep(*stub_, LargeBroadcast(), BackgroundSweep::kCommReady);
  ASSERT_TRUE(sweep.WaitStarted());
  ASSERT_EQ(kill(victim.pid(), SIGSTOP), 0);
  CliResult abort = RunCli({"--coordinator", cluster_->coordinator(), "abort"});
  EXPECT_EQ(abort.exit_code, 0) << abort.err;
  SweepOutcome outcome = sweep.Join();
  EXPECT_EQ(outcome.finished.status(), "aborted") << outcome.status;
  // Ready again once the victim's slot holds its replacement: every worker
  // ready may still be the listing from before the agent replaced it.
  ASSERT_TRUE(Eventually(
      [&] {
        const Health now = Read();
        return now.workers.at(cluster_->NodeName(1))[1].pid() != victim.pid();
      },
      absl::Seconds(30)));
  ASSERT_TRUE(AllReady());
  kill(victim.pid(), SIGCONT);  // in case it was not replaced

  const Health after = Read();
  const std::string node = cluster_->NodeName(1);
  const v1::WorkerInfo respawned = after.workers.at(node)[1];
  EXPECT_NE(respawned.pid(), victim.pid());
  EXPECT_EQ(respawned.restarts(), victim.restarts());
  EXPECT_EQ(after.restarts_total, before.restarts_total);
  EXPECT_EQ(after.abort_kills_total.at(node),
            before.abort_kills_total.at(node) + 1);
  EXPECT_EQ(after.abort_kills_total.at(cluster_->NodeName(0)),
            before.abort_kills_total.at(cluster_->NodeName(0)));
  SweepOutcome next = RunSweep(*stub_, QuickSpec({"all_reduce"}));
  EXPECT_TRUE(next.status.ok()) << next.status;
}

// The fault still fires: a worker killed by its PID is a restart, in
// WorkerInfo and in fabricpulse_agent_worker_restarts_total.
TEST_F(AbortTest, WorkerKilledByPidIsARestart) {
  const Health before = Read();
  const std::string node = cluster_->NodeName(0);
  const v1::WorkerInfo victim = before.workers.at(node)[1];
  ASSERT_GT(victim.pid(), 0);
  ASSERT_EQ(kill(victim.pid(), SIGKILL), 0);
  ASSERT_TRUE(Eventually(
      [&] {
        for (const v1::AgentInfo& a : ListAgents(*stub_)) {
          if (a.node_name() != node) continue;
          const v1::WorkerInfo& w = a.workers(1);
          return w.ready() && w.pid() != victim.pid();
        }
        return false;
      },
      absl::Seconds(30)));
  const Health after = Read();
  EXPECT_EQ(after.workers.at(node)[1].restarts(), victim.restarts() + 1);
  EXPECT_EQ(after.restarts_total.at(node), before.restarts_total.at(node) + 1);
  EXPECT_EQ(after.abort_kills_total.at(node),
            before.abort_kills_total.at(node));
  EXPECT_EQ(after.restarts_total.at(cluster_->NodeName(1)),
            before.restarts_total.at(cluster_->NodeName(1)));
}

}  // namespace
}  // namespace fabricpulse::testing
