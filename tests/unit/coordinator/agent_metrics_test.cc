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
  metrics.RankLatency({"s1", "nightly", "both"}, 5, key, 0.25);
  metrics.RankLatency({"s1", "nightly", "both"}, 5, key,
                      0.125);  // the last one wins
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
                    "fabricpulse_agent_rank_latency_seconds{node=\"node-a\","
                    "op=\"all_reduce\",plan=\"nightly\",rank=\"5\","
                    "size=\"1048576\"}"),
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
      metrics.RankLatency(
          {absl::StrCat("sweep-", sweep), absl::StrCat("plan-", sweep % 7),
           "both"},
          rank,
          Key(absl::StrCat("op-", s % 9), 8 * (10 * sweep + s + 1), s % 2),
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

int RankSeries(const std::string& text, const std::string& with = "") {
  int series = 0;
  const std::string name = "\nfabricpulse_agent_rank_latency_seconds{";
  for (size_t at = text.find(name); at != std::string::npos;
       at = text.find(name, at + 1)) {
    const size_t end = text.find('\n', at + 1);
    if (text.substr(at, end - at).find(with) != std::string::npos) ++series;
  }
  return series;
}

// Issue 29, item 8: a plan's last sweep is summed up per rank by two sizes
// of each op (the smallest, latency-bound; the largest, bandwidth-bound),
// not one series per step: a few dozen per GPU, whatever the sweep's size.
TEST(AgentMetricsTest, EachOpKeepsItsSmallestAndLargestSize) {
  prometheus::Registry registry;
  AgentMetrics metrics(registry, "node-a");
  const RankLatencySweep sweep{"s1", "nightly", "both"};
  for (int rank = 0; rank < 2; ++rank) {
    for (uint64_t bytes = 8; bytes <= (uint64_t{1} << 30); bytes *= 2) {
      metrics.RankLatency(sweep, rank, Key("all_reduce", bytes, false),
                          1e-9 * bytes);
      metrics.RankLatency(sweep, rank, Key("all_reduce", bytes, true), 1);
    }
  }
  const std::string text = Serialize(registry);
  EXPECT_EQ(RankSeries(text), 4);  // 2 ranks x 2 sizes
  EXPECT_EQ(ValueOf(text,
                    "fabricpulse_agent_rank_latency_seconds{node=\"node-a\","
                    "op=\"all_reduce\",plan=\"nightly\",rank=\"1\","
                    "size=\"8\"}"),
            "8e-09");
  EXPECT_EQ(RankSeries(text, "size=\"1073741824\""), 2);
  // out_of_place counts when the spec ran both placements.
  EXPECT_THAT(text, Not(HasSubstr(" 1\n")));
}

TEST(AgentMetricsTest, AnInPlaceOnlySpecIsExportedInPlace) {
  prometheus::Registry registry;
  AgentMetrics metrics(registry, "node-a");
  metrics.RankLatency({"s1", "", "in_place"}, 0, Key("all_reduce", 64, true),
                      0.5);
  const std::string text = Serialize(registry);
  EXPECT_EQ(RankSeries(text, "plan=\"adhoc\""), 1);
}

// Each plan keeps its own last sweep: an ad-hoc sweep no longer overwrites
// the nightly one's series, and a plan's next sweep replaces only its own.
TEST(AgentMetricsTest, EachPlanKeepsItsLastSweep) {
  prometheus::Registry registry;
  AgentMetrics metrics(registry, "node-a");
  metrics.RankLatency({"s1", "nightly", "both"}, 0,
                      Key("all_reduce", 1024, false), 0.5);
  metrics.RankLatency({"s2", "", "both"}, 0, Key("alltoall", 2048, false),
                      0.125);
  std::string text = Serialize(registry);
  EXPECT_EQ(RankSeries(text, "plan=\"nightly\""), 1);
  EXPECT_EQ(RankSeries(text, "plan=\"adhoc\""), 1);
  metrics.RankLatency({"s3", "nightly", "both"}, 0,
                      Key("broadcast", 4096, false), 0.25);
  text = Serialize(registry);
  EXPECT_THAT(text, Not(HasSubstr("size=\"1024\"")));
  EXPECT_EQ(RankSeries(text, "op=\"broadcast\",plan=\"nightly\""), 1);
  EXPECT_EQ(RankSeries(text, "plan=\"adhoc\""), 1);
}

TEST(AgentMetricsTest, RankSeriesAreBoundedByPlansAndOps) {
  prometheus::Registry registry;
  AgentMetrics metrics(registry, "node-a");
  for (int plan = 0; plan < 10; ++plan) {
    for (int op = 0; op < 20; ++op) {
      for (uint64_t bytes = 8; bytes <= 8192; bytes *= 2) {
        metrics.RankLatency(
            {absl::StrCat("s", plan), absl::StrCat("p", plan), "out_of_place"},
            0, Key(absl::StrCat("op", op), bytes, false), 1e-5);
      }
    }
  }
  const std::string text = Serialize(registry);
  EXPECT_EQ(RankSeries(text),
            static_cast<int>(kMaxRankLatencyPlans * kMaxRankLatencyOps * 2));
  // The most recent plans stay.
  EXPECT_EQ(RankSeries(text, "plan=\"p9\""), 16);
  EXPECT_EQ(RankSeries(text, "plan=\"p0\""), 0);
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
