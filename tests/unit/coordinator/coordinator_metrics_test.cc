#include "daemon/coordinator/coordinator_metrics.h"

#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "fabricpulse/v1/types.pb.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "prometheus/gauge.h"
#include "prometheus/registry.h"
#include "tests/unit/coordinator/metrics_test_util.h"

namespace fabricpulse::coordinator {
namespace {

using ::fabricpulse::testing::CountLines;
using ::fabricpulse::testing::Serialize;
using ::fabricpulse::testing::ValueOf;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kStepLabels[] =
    "{dtype=\"float\",nranks=\"8\",op=\"all_reduce\",placement=\"out_of_"
    "place\","
    "plan=\"nightly\",size=\"1048576\"}";

v1::StepResult Step(const std::string& op, uint64_t bytes, bool in_place,
                    double busbw) {
  v1::StepResult result;
  result.mutable_step()->set_op(op);
  result.mutable_step()->set_dtype("float");
  result.mutable_step()->set_bytes(bytes);
  result.mutable_step()->set_in_place(in_place);
  result.set_time_seconds(0.5);
  result.set_algbw_bytes_per_second(busbw / 2);
  result.set_busbw_bytes_per_second(busbw);
  result.set_p50_seconds(0.25);
  result.set_p99_seconds(0.75);
  return result;
}

// `result` judged against a baseline of `baseline_busbw` (none when 0).
v1::StepResult Judged(v1::StepResult result, double baseline_busbw,
                      bool regression) {
  if (baseline_busbw > 0) {
    result.set_baseline_busbw_bytes_per_second(baseline_busbw);
    result.set_baseline_time_seconds(0.4);
    result.set_baseline_sweeps(5);
  }
  result.set_regression(regression);
  return result;
}

// What the recorder does for a step of a succeeded plan sweep.
void RecordJudged(CoordinatorMetrics& metrics, const std::string& plan,
                  const v1::StepResult& result, int nranks,
                  double baseline_busbw, bool regression,
                  bool confirmed = false) {
  const v1::StepResult judged = Judged(result, baseline_busbw, regression);
  metrics.RecordStep(plan, judged, nranks);
  metrics.RecordVerdict(plan, judged, nranks, confirmed);
}

TEST(CoordinatorMetricsTest, RecordStepExportsOnlyTheMeasuredSeries) {
  prometheus::Registry registry;
  CoordinatorMetrics metrics(registry);
  metrics.RecordStep(
      "nightly", Judged(Step("all_reduce", 1048576, false, 3.5e9), 4e9, true),
      8);
  const std::string text = Serialize(registry);
  EXPECT_THAT(text, HasSubstr("\nfabricpulse_busbw_bytes_per_second{"));
  // The verdict is RecordVerdict's, once the sweep succeeded.
  EXPECT_THAT(text,
              Not(HasSubstr("fabricpulse_baseline_busbw_bytes_per_second{")));
  EXPECT_THAT(text, Not(HasSubstr("\nfabricpulse_regression{")));
  EXPECT_THAT(text, Not(HasSubstr("\nfabricpulse_regressions_total{")));
}

TEST(CoordinatorMetricsTest, RecordStepAndVerdictExportEveryStepSeries) {
  prometheus::Registry registry;
  CoordinatorMetrics metrics(registry);
  RecordJudged(metrics, "nightly", Step("all_reduce", 1048576, false, 3.5e9), 8,
               4e9, false);
  const std::string text = Serialize(registry);
  const std::string labels = kStepLabels;
  EXPECT_THAT(text,
              HasSubstr(absl::StrCat("\nfabricpulse_busbw_bytes_per_second",
                                     labels, " 3500000000\n")));
  EXPECT_THAT(text,
              HasSubstr(absl::StrCat("\nfabricpulse_algbw_bytes_per_second",
                                     labels, " 1750000000\n")));
  EXPECT_THAT(text, HasSubstr(absl::StrCat(
                        "\nfabricpulse_baseline_busbw_bytes_per_second", labels,
                        " 4000000000\n")));
  EXPECT_THAT(text, HasSubstr(absl::StrCat("\nfabricpulse_regression", labels,
                                           " 0\n")));
  const std::string latency =
      "fabricpulse_latency_seconds{dtype=\"float\",nranks=\"8\",op=\"all_"
      "reduce\",placement=\"out_of_place\",plan=\"nightly\",size=\"1048576\",";
  EXPECT_EQ(ValueOf(text, latency + "stat=\"mean\"}"), "0.5");
  EXPECT_EQ(ValueOf(text, latency + "stat=\"p50\"}"), "0.25");
  EXPECT_EQ(ValueOf(text, latency + "stat=\"p99\"}"), "0.75");
  // Created at 0 so that increase() sees the first regression.
  EXPECT_EQ(ValueOf(text,
                    "fabricpulse_regressions_total{op=\"all_reduce\","
                    "plan=\"nightly\"}"),
            "0");
  EXPECT_THAT(text, HasSubstr("# TYPE fabricpulse_regressions_total counter"));
  EXPECT_THAT(text, HasSubstr("# TYPE fabricpulse_busbw_bytes_per_second "
                              "gauge"));
}

// Issue 29, item 3: the alert reads the confirmed series. A first
// regression is 1 in fabricpulse_regression, 0 in the confirmed one; the
// recorder's confirmation sets it; a sweep that passes resolves both; and
// WasRegressed tells the recorder what the plan's previous sweep said.
TEST(CoordinatorMetricsTest, OnlyAConfirmedRegressionSetsTheConfirmedSeries) {
  prometheus::Registry registry;
  CoordinatorMetrics metrics(registry);
  const v1::StepResult step = Step("all_reduce", 1048576, false, 3e9);
  const std::string confirmed =
      absl::StrCat("fabricpulse_regression_confirmed", kStepLabels);
  const std::string regressed =
      absl::StrCat("fabricpulse_regression", kStepLabels);
  EXPECT_FALSE(metrics.WasRegressed("nightly", Judged(step, 4e9, true), 8));
  RecordJudged(metrics, "nightly", step, 8, 4e9, true, false);
  EXPECT_EQ(ValueOf(Serialize(registry), regressed), "1");
  EXPECT_EQ(ValueOf(Serialize(registry), confirmed), "0");
  EXPECT_TRUE(metrics.WasRegressed("nightly", Judged(step, 4e9, true), 8));
  RecordJudged(metrics, "nightly", step, 8, 4e9, true, true);
  EXPECT_EQ(ValueOf(Serialize(registry), confirmed), "1");
  RecordJudged(metrics, "nightly", step, 8, 4e9, false, true);
  EXPECT_EQ(ValueOf(Serialize(registry), regressed), "0");
  EXPECT_EQ(ValueOf(Serialize(registry), confirmed), "0");
  EXPECT_FALSE(metrics.WasRegressed("nightly", Judged(step, 4e9, false), 8));
}

TEST(CoordinatorMetricsTest, UnmeasuredPercentilesHaveNoSeries) {
  prometheus::Registry registry;
  CoordinatorMetrics metrics(registry);
  const std::string latency =
      "fabricpulse_latency_seconds{dtype=\"float\",nranks=\"8\",op=\"all_"
      "reduce\",placement=\"out_of_place\",plan=\"nightly\",size=\"1048576\",";
  // Measured first, then the same step without percentiles (graph mode):
  // the old percentiles go, the mean stays.
  metrics.RecordStep("nightly", Step("all_reduce", 1048576, false, 3.5e9), 8);
  EXPECT_EQ(ValueOf(Serialize(registry), latency + "stat=\"p99\"}"), "0.75");
  v1::StepResult graph = Step("all_reduce", 1048576, false, 3.5e9);
  graph.clear_p50_seconds();
  graph.clear_p99_seconds();
  metrics.RecordStep("nightly", graph, 8);
  const std::string text = Serialize(registry);
  EXPECT_EQ(ValueOf(text, latency + "stat=\"mean\"}"), "0.5");
  EXPECT_EQ(text.find("stat=\"p50\""), std::string::npos) << text;
  EXPECT_EQ(text.find("stat=\"p99\""), std::string::npos) << text;
}

TEST(CoordinatorMetricsTest, RecordStepKeepsTheLastValueAndCountsRegressions) {
  prometheus::Registry registry;
  CoordinatorMetrics metrics(registry);
  RecordJudged(metrics, "nightly", Step("all_gather", 4096, true, 1e9), 2, 2e9,
               true);
  RecordJudged(metrics, "nightly", Step("all_gather", 4096, true, 5e8), 2, 2e9,
               true);
  std::string text = Serialize(registry);
  const std::string labels =
      "{dtype=\"float\",nranks=\"2\",op=\"all_gather\",placement=\"in_place\","
      "plan=\"nightly\",size=\"4096\"}";
  EXPECT_EQ(ValueOf(text, "fabricpulse_busbw_bytes_per_second" + labels),
            "500000000");
  EXPECT_EQ(ValueOf(text, "fabricpulse_regression" + labels), "1");
  const std::string regressions =
      "fabricpulse_regressions_total{op=\"all_gather\",plan=\"nightly\"}";
  EXPECT_EQ(ValueOf(text, regressions), "2");

  RecordJudged(metrics, "nightly", Step("all_gather", 4096, true, 2e9), 2, 2e9,
               false);
  text = Serialize(registry);
  EXPECT_EQ(ValueOf(text, "fabricpulse_regression" + labels), "0");
  EXPECT_EQ(ValueOf(text, regressions), "2");
}

TEST(CoordinatorMetricsTest, NoBaselineMeansNoBaselineSeries) {
  prometheus::Registry registry;
  CoordinatorMetrics metrics(registry);
  RecordJudged(metrics, "", Step("broadcast", 8, false, 1e6), 4, 0, false);
  std::string text = Serialize(registry);
  EXPECT_THAT(text,
              Not(HasSubstr("fabricpulse_baseline_busbw_bytes_per_second{")));
  // An empty plan is the CLI's ad-hoc sweep.
  EXPECT_THAT(text, HasSubstr("plan=\"adhoc\""));

  RecordJudged(metrics, "", Step("broadcast", 8, false, 1e6), 4, 2e6, false);
  EXPECT_THAT(Serialize(registry),
              HasSubstr("fabricpulse_baseline_busbw_bytes_per_second{"));
  // A baseline that is gone (history cleared) is not left behind.
  RecordJudged(metrics, "", Step("broadcast", 8, false, 1e6), 4, 0, false);
  EXPECT_THAT(Serialize(registry),
              Not(HasSubstr("fabricpulse_baseline_busbw_bytes_per_second{")));
}

// A verdict without a baseline of enough sweeps (a step stored by a
// coordinator that judged against one sweep) is no regression.
TEST(CoordinatorMetricsTest, NoBaselineSweepsMeansNoRegression) {
  prometheus::Registry registry;
  CoordinatorMetrics metrics(registry);
  v1::StepResult old = Step("all_reduce", 1048576, false, 1e9);
  old.set_baseline_busbw_bytes_per_second(4e9);
  old.set_regression(true);  // baseline_sweeps 0
  metrics.RecordVerdict("nightly", old, 8, true);
  const std::string text = Serialize(registry);
  EXPECT_EQ(ValueOf(text, absl::StrCat("fabricpulse_regression", kStepLabels)),
            "0");
  EXPECT_THAT(text,
              Not(HasSubstr("fabricpulse_baseline_busbw_bytes_per_second{")));
  EXPECT_EQ(ValueOf(text,
                    "fabricpulse_regressions_total{op=\"all_reduce\","
                    "plan=\"nightly\"}"),
            "0");
}

TEST(CoordinatorMetricsTest, SweepFinishedCountsAndTracksTheLastSuccess) {
  prometheus::Registry registry;
  CoordinatorMetrics metrics(registry);
  metrics.SweepFinished("nightly", "schedule", "succeeded", 12.5,
                        absl::FromUnixSeconds(1700000000));
  std::string text = Serialize(registry);
  const std::string sweeps = "fabricpulse_sweeps_total{outcome=\"";
  const std::string rest = "\",plan=\"nightly\",trigger=\"schedule\"}";
  EXPECT_THAT(text, HasSubstr("\n" + sweeps + "succeeded" + rest + " 1\n"));
  EXPECT_THAT(text, HasSubstr("\n" + sweeps + "failed" + rest + " 0\n"));
  EXPECT_THAT(text, HasSubstr("\n" + sweeps + "aborted" + rest + " 0\n"));
  EXPECT_THAT(text, HasSubstr("\n" + sweeps + "interrupted" + rest + " 0\n"));
  EXPECT_THAT(text, HasSubstr("\nfabricpulse_sweep_duration_seconds{plan="
                              "\"nightly\"} 12.5\n"));
  EXPECT_THAT(text, HasSubstr("\nfabricpulse_last_success_timestamp_seconds{"
                              "plan=\"nightly\"} 1700000000\n"));
  EXPECT_THAT(text, HasSubstr("\nfabricpulse_last_sweep_success{plan="
                              "\"nightly\"} 1\n"));

  metrics.SweepFinished("nightly", "schedule", "failed", 3,
                        absl::FromUnixSeconds(1700003600));
  text = Serialize(registry);
  EXPECT_EQ(ValueOf(text, sweeps + "succeeded" + rest), "1");
  EXPECT_EQ(ValueOf(text, sweeps + "failed" + rest), "1");
  EXPECT_EQ(ValueOf(text,
                    "fabricpulse_sweep_duration_seconds{plan="
                    "\"nightly\"}"),
            "3");
  EXPECT_EQ(ValueOf(text, "fabricpulse_last_sweep_success{plan=\"nightly\"}"),
            "0");
  // Only a success moves the timestamp.
  EXPECT_EQ(ValueOf(text,
                    "fabricpulse_last_success_timestamp_seconds{plan="
                    "\"nightly\"}"),
            "1700000000");
}

TEST(CoordinatorMetricsTest, SweepFinishedKeepsLabelsBounded) {
  prometheus::Registry registry;
  CoordinatorMetrics metrics(registry);
  metrics.SweepFinished("", "cron job 42", "exploded", 1, absl::Now());
  metrics.SweepFinished("adhoc", "cli", "aborted", 2, absl::Now());
  const std::string text = Serialize(registry);
  EXPECT_EQ(ValueOf(text,
                    "fabricpulse_sweeps_total{outcome=\"failed\","
                    "plan=\"adhoc\",trigger=\"cli\"}"),
            "1");
  EXPECT_EQ(ValueOf(text,
                    "fabricpulse_sweeps_total{outcome=\"aborted\","
                    "plan=\"adhoc\",trigger=\"cli\"}"),
            "1");
  EXPECT_THAT(text, Not(HasSubstr("exploded")));
  EXPECT_THAT(text, Not(HasSubstr("cron job")));
}

// A preempted sweep yielded to a foreign GPU process: counted under its
// own outcome, and the plan's last result (success, duration) is untouched.
TEST(CoordinatorMetricsTest, APreemptedSweepCountsOnlyItsOutcome) {
  prometheus::Registry registry;
  CoordinatorMetrics metrics(registry);
  metrics.SweepFinished("nightly", "schedule", "succeeded", 7,
                        absl::FromUnixSeconds(1700000000));
  metrics.SweepFinished("nightly", "schedule", "preempted", 2,
                        absl::FromUnixSeconds(1700000100));
  const std::string text = Serialize(registry);
  const std::string sweeps = "fabricpulse_sweeps_total{outcome=\"";
  const std::string rest = "\",plan=\"nightly\",trigger=\"schedule\"}";
  EXPECT_EQ(ValueOf(text, sweeps + "preempted" + rest), "1");
  EXPECT_EQ(ValueOf(text, sweeps + "failed" + rest), "0");
  EXPECT_EQ(ValueOf(text, sweeps + "succeeded" + rest), "1");
  EXPECT_EQ(ValueOf(text, "fabricpulse_last_sweep_success{plan=\"nightly\"}"),
            "1");
  EXPECT_EQ(
      ValueOf(text, "fabricpulse_sweep_duration_seconds{plan=\"nightly\"}"),
      "7");
  EXPECT_EQ(ValueOf(text,
                    "fabricpulse_last_success_timestamp_seconds{plan="
                    "\"nightly\"}"),
            "1700000000");
}

TEST(CoordinatorMetricsTest, LastSuccessIsRestoredAfterARestart) {
  prometheus::Registry registry;
  CoordinatorMetrics metrics(registry);
  metrics.RestoreLastSuccess("nightly", absl::FromUnixSeconds(1700000000));
  EXPECT_EQ(ValueOf(Serialize(registry),
                    "fabricpulse_last_success_timestamp_seconds{plan="
                    "\"nightly\"}"),
            "1700000000");
}

TEST(CoordinatorMetricsTest, FleetSeries) {
  prometheus::Registry registry;
  CoordinatorMetrics metrics(registry);
  std::string text = Serialize(registry);
  EXPECT_EQ(ValueOf(text, "fabricpulse_agents{state=\"alive\"}"), "0");
  EXPECT_EQ(ValueOf(text, "fabricpulse_agents{state=\"lost\"}"), "0");

  metrics.SetAgents(3, 1);
  metrics.CommInit(16, 1.5);
  metrics.LateArrival("node-a", 3);
  metrics.LateArrival("node-a", 3);
  metrics.LateArrival("node-b", 12);
  metrics.WrongElements("node-b", 12, 1024);
  metrics.WrongElements("node-b", 12, 6);
  text = Serialize(registry);
  EXPECT_EQ(ValueOf(text, "fabricpulse_agents{state=\"alive\"}"), "3");
  EXPECT_EQ(ValueOf(text, "fabricpulse_agents{state=\"lost\"}"), "1");
  EXPECT_EQ(ValueOf(text, "fabricpulse_comm_init_seconds{nranks=\"16\"}"),
            "1.5");
  EXPECT_EQ(ValueOf(text,
                    "fabricpulse_late_arrival_total{node=\"node-a\","
                    "rank=\"3\"}"),
            "2");
  EXPECT_EQ(ValueOf(text,
                    "fabricpulse_late_arrival_total{node=\"node-b\","
                    "rank=\"12\"}"),
            "1");
  EXPECT_EQ(ValueOf(text,
                    "fabricpulse_wrong_elements_total{node=\"node-b\","
                    "rank=\"12\"}"),
            "1030");
  // Only ranks that corrupted have a series.
  EXPECT_EQ(text.find("fabricpulse_wrong_elements_total{node=\"node-a\""),
            std::string::npos);
}

TEST(CoordinatorMetricsTest, HangCulpritNamesOnlyTheLastCulprit) {
  prometheus::Registry registry;
  CoordinatorMetrics metrics(registry);
  metrics.HangCulprit("node-a", 2, 5);
  metrics.HangCulprit("node-b", -1, 9);
  std::string text = Serialize(registry);
  EXPECT_EQ(ValueOf(text, "fabricpulse_hangs_total{node=\"node-a\"}"), "1");
  EXPECT_EQ(ValueOf(text, "fabricpulse_hangs_total{node=\"node-b\"}"), "1");
  // A CPU rank has no gpu label (no gpu="-1").
  EXPECT_EQ(
      ValueOf(text, "fabricpulse_hang_culprit{node=\"node-b\",rank=\"9\"}"),
      "1");
  EXPECT_THAT(text, Not(HasSubstr("gpu=\"-1\"")));
  EXPECT_THAT(text, Not(HasSubstr("fabricpulse_hang_culprit{gpu=\"2\"")));

  // The same culprit again keeps its series.
  metrics.HangCulprit("node-b", -1, 9);
  text = Serialize(registry);
  EXPECT_EQ(ValueOf(text, "fabricpulse_hangs_total{node=\"node-b\"}"), "2");
  EXPECT_EQ(
      ValueOf(text, "fabricpulse_hang_culprit{node=\"node-b\",rank=\"9\"}"),
      "1");

  metrics.ClearHangCulprit();
  metrics.ClearHangCulprit();
  text = Serialize(registry);
  EXPECT_THAT(text, Not(HasSubstr("fabricpulse_hang_culprit{")));
  EXPECT_EQ(ValueOf(text, "fabricpulse_hangs_total{node=\"node-b\"}"), "2");
}

// One sweep of a plan as the coordinator reports it: 2 ops x 10 sizes x 2
// placements, with values, slowest ranks, outcomes and culprits that vary
// from sweep to sweep (with periods that divide 10).
void ReportSweep(CoordinatorMetrics& metrics, int sweep) {
  for (const char* op : {"all_reduce", "reduce_scatter"}) {
    for (int s = 0; s < 10; ++s) {
      for (bool in_place : {false, true}) {
        v1::StepResult step =
            Step(op, uint64_t{1024} << s, in_place, 1e9 + sweep * 1e6 + s);
        step.set_slowest_rank(sweep % 8);
        RecordJudged(metrics, "nightly", step, 8, sweep % 2 == 0 ? 1.1e9 : 0,
                     sweep % 3 == 0);
        metrics.LateArrival(sweep % 2 == 0 ? "node-a" : "node-b",
                            step.slowest_rank());
      }
    }
  }
  metrics.CommInit(8, 0.1 * sweep);
  metrics.SetAgents(2, sweep % 2);
  const char* outcomes[] = {"succeeded", "failed", "aborted", "interrupted"};
  const char* outcome = outcomes[sweep % 4];
  if (std::string(outcome) == "failed") {
    metrics.HangCulprit(sweep % 8 < 4 ? "node-a" : "node-b", sweep % 4,
                        sweep % 8);
  }
  metrics.SweepFinished("nightly", sweep % 2 == 0 ? "schedule" : "cli", outcome,
                        60 + sweep,
                        absl::FromUnixSeconds(1700000000 + 3600 * sweep));
}

TEST(CoordinatorMetricsTest, SeriesCountStaysFlatAcrossSweeps) {
  prometheus::Registry registry;
  CoordinatorMetrics metrics(registry);
  int sweep = 0;
  for (; sweep < 10; ++sweep) ReportSweep(metrics, sweep);
  const int after_10 = CountLines(Serialize(registry));
  for (; sweep < 1000; ++sweep) ReportSweep(metrics, sweep);
  const std::string text = Serialize(registry);
  EXPECT_EQ(CountLines(text), after_10);
  EXPECT_GT(after_10, 200);  // the steps' series are all there
  EXPECT_EQ(ValueOf(text,
                    "fabricpulse_sweeps_total{outcome=\"succeeded\","
                    "plan=\"nightly\",trigger=\"schedule\"}"),
            "250");
}

TEST(CoordinatorMetricsTest, ConfiguredPlansEventCountersStartAtZero) {
  prometheus::Registry registry;
  CoordinatorMetrics metrics(registry);
  metrics.AddPlan("nightly", /*isolates=*/true);
  metrics.AddPlan("hourly", /*isolates=*/false);
  std::string text = Serialize(registry);
  for (const char* plan : {"nightly", "hourly"}) {
    for (const char* cause : {"backend_version", "topology"}) {
      EXPECT_EQ(ValueOf(text, absl::StrCat(
                                  "fabricpulse_baseline_changes_total{cause=\"",
                                  cause, "\",plan=\"", plan, "\"}")),
                "0")
          << plan << " " << cause << "\n"
          << text;
    }
  }
  for (const char* verdict :
       {"node", "link", "nodes", "none", "gave_up", "skipped", "interrupted"}) {
    EXPECT_EQ(ValueOf(text, absl::StrCat(
                                "fabricpulse_isolations_total{plan=\"nightly\","
                                "verdict=\"",
                                verdict, "\"}")),
              "0")
        << verdict;
  }
  // A plan without isolate_on has no isolation series.
  EXPECT_THAT(text,
              Not(HasSubstr("fabricpulse_isolations_total{plan=\"hourly\"")));
  // The first event counts from the 0.
  metrics.IsolationFinished("nightly", "link");
  text = Serialize(registry);
  EXPECT_EQ(ValueOf(text,
                    "fabricpulse_isolations_total{plan=\"nightly\",verdict="
                    "\"link\"}"),
            "1");
}

TEST(CoordinatorMetricsTest, ConcurrentWritersAndScrapes) {
  prometheus::Registry registry;
  CoordinatorMetrics metrics(registry);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&metrics, t] {
      for (int i = 0; i < 500; ++i) {
        // Baselines and culprits appear and go away under the other threads.
        RecordJudged(metrics, "nightly", Step("all_reduce", 8, false, 1e9), 2,
                     (i + t) % 2 == 0 ? 1e9 : 0, false);
        metrics.HangCulprit("node-a", t, i % 3);
        if (i % 7 == 0) metrics.ClearHangCulprit();
      }
    });
  }
  threads.emplace_back([&registry] {
    for (int i = 0; i < 200; ++i) Serialize(registry);
  });
  for (std::thread& thread : threads) thread.join();
  const std::string text = Serialize(registry);
  EXPECT_EQ(ValueOf(text, "fabricpulse_hangs_total{node=\"node-a\"}"), "2000");
  // At most one culprit series survives.
  int culprits = 0;
  for (size_t at = text.find("\nfabricpulse_hang_culprit{");
       at != std::string::npos;
       at = text.find("\nfabricpulse_hang_culprit{", at + 1)) {
    ++culprits;
  }
  EXPECT_LE(culprits, 1);
}

// A campaign's group sweeps are sweeps of one plan that end while others
// record: an end removes series another sweep is writing (it freed one
// between Add and Set before its regression gauges were written under the
// lock; the coordinator crashed with 1,024 group sweeps at once).
TEST(CoordinatorMetricsTest, SweepsOfOnePlanEndWhileOthersRecord) {
  prometheus::Registry registry;
  CoordinatorMetrics metrics(registry);
  constexpr int kThreads = 4;
  constexpr int kSweeps = 300;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&metrics, t] {
      for (int i = 0; i < kSweeps; ++i) {
        const uint64_t bytes = 8u << ((i + t) % 4);
        RecordJudged(metrics, "camp", Step("all_reduce", bytes, false, 1e9), 2,
                     i % 2 == 0 ? 1e9 : 0, i % 3 == 0, i % 6 == 0);
        metrics.SweepFinished("camp", "campaign", "succeeded", 1.0,
                              absl::Now());
      }
    });
  }
  threads.emplace_back([&registry] {
    for (int i = 0; i < 100; ++i) Serialize(registry);
  });
  for (std::thread& thread : threads) thread.join();
  const std::string text = Serialize(registry);
  EXPECT_EQ(
      ValueOf(text,
              "fabricpulse_sweeps_total{outcome=\"succeeded\",plan=\"camp\","
              "trigger=\"campaign\"}"),
      absl::StrCat(kThreads * kSweeps));
}

TEST(CoordinatorMetricsTest, PromtoolAcceptsTheExposition) {
  const std::string promtool = testing::FindPromtool();
  ASSERT_FALSE(promtool.empty()) << testing::kPromtoolMissing;
  prometheus::Registry registry;
  // The build_info gauge MetricsServer adds to every daemon's registry.
  prometheus::BuildGauge()
      .Name("fabricpulse_build_info")
      .Help("Build information; the value is always 1")
      .Register(registry)
      .Add({{"component", "coordinator"},
            {"version", "0.1.0+1a2b3c4d5e6f.dirty"}})
      .Set(1);
  CoordinatorMetrics metrics(registry);
  for (int sweep = 0; sweep < 4; ++sweep) ReportSweep(metrics, sweep);
  const std::string text = Serialize(registry);
  testing::CommandResult check = testing::PromtoolCheckMetrics(promtool, text);
  EXPECT_EQ(check.exit_code, 0) << check.output << "\n--- input:\n" << text;
}

// Series of one family whose labels contain `needle`.
int CountSeries(const std::string& text, const std::string& family,
                const std::string& needle) {
  int n = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (absl::StartsWith(line, family + "{") &&
        absl::StrContains(line, needle)) {
      ++n;
    }
  }
  return n;
}

// Ad-hoc sweeps with new sizes each time: only the last one's steps stay.
TEST(CoordinatorMetricsTest, AdhocStepSeriesAreTheLastAdhocSweepsOnly) {
  prometheus::Registry registry;
  CoordinatorMetrics metrics(registry);
  const absl::Time now = absl::FromUnixSeconds(1700000000);
  for (int sweep = 0; sweep < 5; ++sweep) {
    for (int i = 0; i < 3; ++i) {
      metrics.RecordStep(
          "", Step("all_reduce", 1024 * (10 * sweep + i + 1), false, 1e9), 4);
    }
    metrics.SweepFinished("", "cli", sweep % 2 ? "aborted" : "succeeded", 1,
                          now);
  }
  const std::string text = Serialize(registry);
  EXPECT_EQ(
      CountSeries(text, "fabricpulse_busbw_bytes_per_second", "plan=\"adhoc\""),
      3);
  EXPECT_EQ(CountSeries(text, "fabricpulse_latency_seconds", "plan=\"adhoc\""),
            9);
  EXPECT_THAT(text, HasSubstr("size=\"41984\""));  // the last sweep's
  EXPECT_THAT(text, Not(HasSubstr("size=\"31744\"")));
  // A sweep that measured nothing leaves the last one's series.
  metrics.SweepFinished("", "cli", "failed", 1, now);
  EXPECT_EQ(CountSeries(Serialize(registry),
                        "fabricpulse_busbw_bytes_per_second", "plan=\"adhoc\""),
            3);
}

TEST(CoordinatorMetricsTest, AdhocStepSeriesAreCapped) {
  prometheus::Registry registry;
  CoordinatorMetrics metrics(registry);
  for (size_t i = 0; i < kMaxAdhocStepSeries + 100; ++i) {
    metrics.RecordStep("", Step("all_reduce", 8 * (i + 1), false, 1e9), 4);
  }
  EXPECT_EQ(CountSeries(Serialize(registry),
                        "fabricpulse_busbw_bytes_per_second", "plan=\"adhoc\""),
            static_cast<int>(kMaxAdhocStepSeries));
  // The next ad-hoc sweep replaces them, within the same cap.
  metrics.SweepFinished("", "cli", "succeeded", 1,
                        absl::FromUnixSeconds(1700000000));
  for (size_t i = 0; i < kMaxAdhocStepSeries + 100; ++i) {
    metrics.RecordStep("", Step("alltoall", 8 * (i + 1), false, 1e9), 4);
  }
  const std::string text = Serialize(registry);
  EXPECT_EQ(
      CountSeries(text, "fabricpulse_busbw_bytes_per_second", "plan=\"adhoc\""),
      static_cast<int>(kMaxAdhocStepSeries));
  EXPECT_EQ(CountSeries(text, "fabricpulse_busbw_bytes_per_second",
                        "op=\"alltoall\""),
            static_cast<int>(kMaxAdhocStepSeries));
}

// A plan keeps its steps; a member count that changed leaves no stale
// series once a sweep succeeds; a failed sweep removes nothing.
TEST(CoordinatorMetricsTest, PlanStepSeriesAreReplacedBySucceededSweeps) {
  prometheus::Registry registry;
  CoordinatorMetrics metrics(registry);
  const absl::Time now = absl::FromUnixSeconds(1700000000);
  auto sweep = [&](int nranks, int steps, const char* outcome) {
    for (int i = 0; i < steps; ++i) {
      RecordJudged(metrics, "nightly",
                   Step("all_reduce", 1024 << i, false, 1e9), nranks, 2e9,
                   false);
    }
    metrics.SweepFinished("nightly", "schedule", outcome, 1, now);
  };
  sweep(8, 4, "succeeded");
  sweep(16, 2, "failed");  // partial, other member count
  std::string text = Serialize(registry);
  EXPECT_EQ(CountSeries(text, "fabricpulse_busbw_bytes_per_second",
                        "plan=\"nightly\""),
            6);
  sweep(16, 4, "succeeded");
  text = Serialize(registry);
  EXPECT_EQ(CountSeries(text, "fabricpulse_busbw_bytes_per_second",
                        "plan=\"nightly\""),
            4);
  EXPECT_EQ(CountSeries(text, "fabricpulse_baseline_busbw_bytes_per_second",
                        "nranks=\"8\""),
            0);
  EXPECT_EQ(CountSeries(text, "fabricpulse_regression", "nranks=\"16\""), 4);
}

}  // namespace
}  // namespace fabricpulse::coordinator
