// The agent's series (kept here, beside the coordinator's, until tests have
// a unit/agent folder).
#include "daemon/agent/agent_metrics.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "prometheus/registry.h"
#include "tests/unit/coordinator/metrics_test_util.h"

namespace fabricpulse::agent {
namespace {

using ::fabricpulse::testing::CountLines;
using ::fabricpulse::testing::Serialize;
using ::fabricpulse::testing::ValueOf;
using ::testing::HasSubstr;
using ::testing::Not;

TEST(AgentMetricsTest, NodeSeriesExistFromTheStart) {
  prometheus::Registry registry;
  AgentMetrics metrics(registry, "node-a");
  const std::string text = Serialize(registry);
  EXPECT_THAT(text, HasSubstr("\nfabricpulse_agent_worker_restarts_total{node="
                              "\"node-a\"} 0\n"));
  EXPECT_THAT(text, HasSubstr("\nfabricpulse_agent_workers{node=\"node-a\"} "
                              "0\n"));
  EXPECT_THAT(text, HasSubstr("\nfabricpulse_agent_workers_ready{node=\"node-"
                              "a\"} 0\n"));
  EXPECT_THAT(text, HasSubstr("# TYPE fabricpulse_agent_worker_restarts_total "
                              "counter"));
  // No GPU series until the NVML probe's first poll calls GpuBusy (it never
  // does for CPU ranks or without a driver; tests/unit/agent/
  // gpu_busy_probe_test.cc covers the probe).
  EXPECT_THAT(text, Not(HasSubstr("fabricpulse_agent_gpu_busy{")));
}

TEST(AgentMetricsTest, RecordsWorkersRestartsLatencyAndGpuBusy) {
  prometheus::Registry registry;
  AgentMetrics metrics(registry, "node-a");
  metrics.WorkerRestarted();
  metrics.WorkerRestarted();
  metrics.SetWorkers(4, 3);
  metrics.RankLatency(5, "all_reduce", 1048576, 0.25);
  metrics.RankLatency(5, "all_reduce", 1048576, 0.125);  // the last one wins
  metrics.GpuBusy(1, true);
  metrics.GpuBusy(2, false);
  const std::string text = Serialize(registry);
  EXPECT_EQ(ValueOf(text,
                    "fabricpulse_agent_worker_restarts_total{node="
                    "\"node-a\"}"),
            "2");
  EXPECT_EQ(ValueOf(text, "fabricpulse_agent_workers{node=\"node-a\"}"), "4");
  EXPECT_EQ(ValueOf(text, "fabricpulse_agent_workers_ready{node=\"node-a\"}"),
            "3");
  EXPECT_EQ(ValueOf(text,
                    "fabricpulse_agent_rank_latency_seconds{node=\"node-"
                    "a\",op=\"all_reduce\",rank=\"5\",size=\"1048576\"}"),
            "0.125");
  EXPECT_EQ(ValueOf(text,
                    "fabricpulse_agent_gpu_busy{gpu=\"1\",node=\"node-"
                    "a\"}"),
            "1");
  EXPECT_EQ(ValueOf(text,
                    "fabricpulse_agent_gpu_busy{gpu=\"2\",node=\"node-"
                    "a\"}"),
            "0");
}

void ReportSweep(AgentMetrics& metrics, int sweep) {
  for (int rank = 0; rank < 4; ++rank) {
    for (int s = 0; s < 10; ++s) {
      metrics.RankLatency(rank, "all_reduce", uint64_t{8} << s,
                          1e-5 * (sweep + s + 1));
    }
  }
  if (sweep % 5 == 0) metrics.WorkerRestarted();
  metrics.SetWorkers(4, 4 - sweep % 2);
}

TEST(AgentMetricsTest, SeriesCountStaysFlatAcrossSweeps) {
  prometheus::Registry registry;
  AgentMetrics metrics(registry, "node-a");
  int sweep = 0;
  for (; sweep < 10; ++sweep) ReportSweep(metrics, sweep);
  const int after_10 = CountLines(Serialize(registry));
  for (; sweep < 1000; ++sweep) ReportSweep(metrics, sweep);
  EXPECT_EQ(CountLines(Serialize(registry)), after_10);
}

TEST(AgentMetricsTest, PromtoolAcceptsTheExposition) {
  const std::string promtool = testing::FindPromtool();
  ASSERT_FALSE(promtool.empty()) << testing::kPromtoolMissing;
  prometheus::Registry registry;
  AgentMetrics metrics(registry, "node-a");
  ReportSweep(metrics, 0);
  metrics.GpuBusy(0, false);
  const std::string text = Serialize(registry);
  testing::CommandResult check = testing::PromtoolCheckMetrics(promtool, text);
  EXPECT_EQ(check.exit_code, 0) << check.output << "\n--- input:\n" << text;
}

}  // namespace
}  // namespace fabricpulse::agent
