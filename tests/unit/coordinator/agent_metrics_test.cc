// The agent's series (kept here, beside the coordinator's, until tests have
// a unit/agent folder).
#include "daemon/agent/agent_metrics.h"

#include <string>

#include "absl/strings/str_cat.h"
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
  v1::StepKey key;
  key.set_op("all_reduce");
  key.set_dtype("float");
  key.set_bytes(1048576);
  metrics.RankLatency("s1", 5, key, 0.25);
  metrics.RankLatency("s1", 5, key, 0.125);  // the last one wins
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
                    "fabricpulse_agent_rank_latency_seconds{dtype=\"float\","
                    "node=\"node-a\",op=\"all_reduce\",placement=\"out_of_"
                    "place\",rank=\"5\",size=\"1048576\"}"),
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

v1::StepKey Key(const std::string& op, uint64_t bytes, bool in_place) {
  v1::StepKey key;
  key.set_op(op);
  key.set_dtype("float");
  key.set_bytes(bytes);
  key.set_in_place(in_place);
  return key;
}

// Sweeps with new sizes each time, as ad-hoc sweeps have.
void ReportSweep(AgentMetrics& metrics, int sweep) {
  for (int rank = 0; rank < 4; ++rank) {
    for (int s = 0; s < 10; ++s) {
      metrics.RankLatency(absl::StrCat("sweep-", sweep), rank,
                          Key("all_reduce", 8 * (10 * sweep + s + 1), s % 2),
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

// The series are those of the last sweep only: another sweep (another
// plan, placement or member set) never mixes with it.
TEST(AgentMetricsTest, RankLatencyIsTheLastSweepsOnly) {
  prometheus::Registry registry;
  AgentMetrics metrics(registry, "node-a");
  metrics.RankLatency("s1", 0, Key("all_reduce", 1024, false), 0.5);
  metrics.RankLatency("s1", 1, Key("all_reduce", 1024, true), 0.25);
  metrics.RankLatency("s2", 2, Key("alltoall", 2048, false), 0.125);
  const std::string text = Serialize(registry);
  EXPECT_THAT(text, ::testing::Not(::testing::HasSubstr("size=\"1024\"")));
  EXPECT_THAT(text, ::testing::HasSubstr("op=\"alltoall\",placement=\"out_"
                                         "of_place\",rank=\"2\",size=\"2048\"}"
                                         " 0.125"));
}

TEST(AgentMetricsTest, RankLatencyStepsAreCapped) {
  prometheus::Registry registry;
  AgentMetrics metrics(registry, "node-a");
  for (size_t s = 0; s < kMaxRankLatencySteps + 50; ++s) {
    for (int rank = 0; rank < 2; ++rank) {
      metrics.RankLatency("s1", rank, Key("all_reduce", 8 * (s + 1), false),
                          1e-5);
    }
  }
  const std::string text = Serialize(registry);
  int series = 0;
  for (size_t at = text.find("\nfabricpulse_agent_rank_latency_seconds{");
       at != std::string::npos;
       at = text.find("\nfabricpulse_agent_rank_latency_seconds{", at + 1)) {
    ++series;
  }
  EXPECT_EQ(series, static_cast<int>(2 * kMaxRankLatencySteps));
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
