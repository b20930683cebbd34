// The report's page from sweep data built here: per-op charts (one point
// per step, the baseline band only where the steps carry one), the
// pairwise matrix heatmap (the op itself is not on this branch), trends
// and their bound, metadata escaped.
#include "client/report/report_page.h"

#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "client/report/heatmap.h"
#include "client/report/op_charts.h"
#include "client/report/pair_matrix_section.h"
#include "client/report/sweep_metadata.h"
#include "client/report/trend_section.h"
#include "gtest/gtest.h"
#include "tests/unit/client/count_substrings.h"

namespace fabricpulse::client::report {
namespace {
namespace FP_UNITY_ID {

int Count(const std::string& text, const std::string& what) {
  return testing::CountSubstrings(text, what);
}

v1::StepResult* AddStep(v1::GetSweepResponse& sweep, const std::string& op,
                        uint64_t bytes, bool in_place) {
  v1::StepResult* r = sweep.add_results();
  r->mutable_step()->set_index(sweep.results_size() - 1);
  r->mutable_step()->set_op(op);
  r->mutable_step()->set_bytes(bytes);
  r->mutable_step()->set_in_place(in_place);
  r->set_time_seconds(1e-5 + bytes * 1e-9);
  r->set_busbw_bytes_per_second(bytes / r->time_seconds());
  r->set_algbw_bytes_per_second(bytes / r->time_seconds());
  return r;
}

// all_reduce and all_gather at 8, 64 and 512 B, both placements; the
// out-of-place steps of all_reduce carry a baseline when `baselines`.
v1::GetSweepResponse Sweep(const std::string& id, double started,
                           bool baselines) {
  v1::GetSweepResponse sweep;
  v1::SweepSummary& s = *sweep.mutable_sweep();
  s.set_sweep_id(id);
  s.set_plan("nightly");
  s.set_trigger("schedule:nightly");
  s.set_status("succeeded");
  s.set_nranks(2);
  s.add_nodes("node-a");
  s.set_backend("gloo");
  s.set_started_unix_seconds(started);
  s.set_finished_unix_seconds(started + 2);
  s.mutable_spec()->add_ops("all_reduce");
  s.mutable_spec()->add_ops("all_gather");
  for (const char* op : {"all_reduce", "all_gather"}) {
    for (bool in_place : {false, true}) {
      for (uint64_t bytes : {8, 64, 512}) {
        v1::StepResult* r = AddStep(sweep, op, bytes, in_place);
        if (baselines && !in_place && std::string(op) == "all_reduce") {
          r->set_baseline_busbw_bytes_per_second(r->busbw_bytes_per_second() *
                                                 1.5);
          r->set_baseline_time_seconds(r->time_seconds() / 1.5);
          r->set_baseline_sweeps(5);
          r->set_regression(bytes == 512);
        }
      }
    }
  }
  return sweep;
}

TEST(OpChartsTest, TwoChartsPerOpWithOnePointPerStep) {
  const std::string html = RenderOpCharts(Sweep("a", 1e9, false), "s0");
  for (const char* id : {"s0-busbw-all-reduce", "s0-latency-all-reduce",
                         "s0-busbw-all-gather", "s0-latency-all-gather"}) {
    EXPECT_TRUE(absl::StrContains(html, absl::StrCat("id=\"", id, "\""))) << id;
  }
  // 2 ops x 2 placements x 3 sizes, on each of the two charts.
  EXPECT_EQ(Count(html, "class=\"point "), 24);
  EXPECT_EQ(Count(html, "class=\"point out-of-place\""), 12);
  EXPECT_EQ(Count(html, "class=\"point in-place\""), 12);
  // No baseline in the steps: no band, none invented.
  EXPECT_EQ(Count(html, "class=\"band"), 0);
  EXPECT_EQ(Count(html, "regression"), 0);
  EXPECT_TRUE(absl::StrContains(html, "data-op=\"all_reduce\""));
}

TEST(OpChartsTest, BaselineBandOnlyWhereTheStepsCarryOne) {
  const std::string html = RenderOpCharts(Sweep("a", 1e9, true), "s0");
  // all_reduce out-of-place: a band on its busbw and its latency chart.
  EXPECT_EQ(Count(html, "<path class=\"band baseline-out-of-place\""), 2);
  EXPECT_EQ(Count(html, "baseline-in-place"), 0);
  EXPECT_TRUE(absl::StrContains(
      html, "baseline out-of-place: median of 5 sweeps of the plan"));
  // The 512 B step regressed: ringed on both charts.
  EXPECT_EQ(Count(html, "class=\"regression-ring\""), 2);
  EXPECT_EQ(Count(html, "class=\"point regression out-of-place\""), 2);
  // all_gather carries none.
  const size_t gather = html.find("id=\"s0-busbw-all-gather\"");
  ASSERT_NE(gather, std::string::npos);
  EXPECT_FALSE(absl::StrContains(html.substr(gather), "class=\"band"));
}

TEST(OpChartsTest, AStepWithoutABaselineTimeGetsNoLatencyBand) {
  v1::GetSweepResponse sweep = Sweep("a", 1e9, true);
  for (v1::StepResult& r : *sweep.mutable_results()) {
    r.clear_baseline_time_seconds();
  }
  const std::string html = RenderOpCharts(sweep, "s0");
  EXPECT_EQ(Count(html, "<path class=\"band"), 1);  // busbw only
}

// A pairwise matrix of 4 ranks at 1 MiB: 3 rounds of 2 disjoint pairs, the
// pair (1, 3) flagged.
v1::GetSweepResponse MatrixSweep() {
  v1::GetSweepResponse sweep = Sweep("m", 1e9, false);
  sweep.mutable_sweep()->set_nranks(4);
  const int rounds[3][2][2] = {
      {{0, 1}, {2, 3}}, {{0, 2}, {1, 3}}, {{0, 3}, {1, 2}}};
  for (int round = 0; round < 3; ++round) {
    v1::StepResult* r = AddStep(sweep, "pairwise", 1 << 20, false);
    r->mutable_step()->set_round(round);
    for (const auto& pair : rounds[round]) {
      v1::PairResult* p = r->add_pairs();
      p->set_rank_a(pair[0]);
      p->set_rank_b(pair[1]);
      p->set_node_a(pair[0] < 2 ? "node-a" : "node-<b>");
      p->set_node_b(pair[1] < 2 ? "node-a" : "node-<b>");
      p->set_path(pair[0] / 2 == pair[1] / 2 ? "pcie_shm" : "network");
      p->set_time_seconds(1e-3);
      p->set_busbw_bytes_per_second(1e9 * (1 + pair[0] + pair[1]));
      p->set_flagged(pair[0] == 1 && pair[1] == 3);
    }
  }
  return sweep;
}

TEST(PairMatrixTest, HeatmapOfEveryRoundsPairsWithFlaggedOutlined) {
  const v1::GetSweepResponse sweep = MatrixSweep();
  const std::string html = RenderPairMatrices(sweep, "s0");
  EXPECT_TRUE(absl::StrContains(
      html,
      "<svg class=\"heatmap\" id=\"s0-pairs-pairwise-1048576-out-of-"
      "place\""))
      << html;
  // 6 pairs, each drawn at (a, b) and (b, a).
  EXPECT_EQ(Count(html, "<rect class=\"cell"), 12);
  EXPECT_EQ(Count(html, "<rect class=\"cell flagged\""), 2);
  EXPECT_TRUE(absl::StrContains(html, "data-a=\"3\" data-b=\"1\""));
  EXPECT_FALSE(absl::StrContains(html, "node-<b>"));
  EXPECT_TRUE(absl::StrContains(html, "node-&lt;b&gt;"));
  // The matrix op is not drawn as a line chart.
  const std::string charts = RenderOpCharts(sweep, "s0");
  EXPECT_FALSE(absl::StrContains(charts, "pairwise")) << charts;
  EXPECT_EQ(Count(charts, "class=\"point "), 24);
}

TEST(PairMatrixTest, NothingWithoutPairs) {
  EXPECT_EQ(RenderPairMatrices(Sweep("a", 1e9, false), "s0"), "");
}

TEST(PairMatrixTest, TooManyRanksAreListedNotDrawn) {
  v1::GetSweepResponse sweep = Sweep("big", 1e9, false);
  sweep.mutable_sweep()->set_nranks(kMaxHeatmapRanks + 2);
  v1::StepResult* r = AddStep(sweep, "pairwise", 1024, false);
  v1::PairResult* p = r->add_pairs();
  p->set_rank_a(0);
  p->set_rank_b(kMaxHeatmapRanks + 1);
  p->set_flagged(true);
  const std::string html = RenderPairMatrices(sweep, "s0");
  EXPECT_EQ(Count(html, "<svg class=\"heatmap\""), 0);
  EXPECT_TRUE(absl::StrContains(html, "more than a heatmap shows")) << html;
  EXPECT_EQ(Count(html, "<li>"), 1);
}

TEST(TrendsTest, OnePointPerSweepAndSize) {
  std::vector<v1::GetSweepResponse> sweeps = {Sweep("c", 1e9 + 7200, false),
                                              Sweep("b", 1e9 + 3600, false),
                                              Sweep("a", 1e9, false)};
  const std::string html = RenderTrends(sweeps);
  EXPECT_TRUE(absl::StrContains(html, "id=\"trend-all-reduce-out-of-place\""))
      << html;
  // 2 ops x 2 placements charts, each 3 sizes x 3 sweeps.
  EXPECT_EQ(Count(html, "<svg class=\"chart trend\""), 4);
  EXPECT_EQ(Count(html, "class=\"point "), 36);
  EXPECT_EQ(Count(html, "class=\"point size-8\""), 12);
  // Points in time order along each line: the oldest first.
  const size_t first = html.find("data-x=\"1000000000\"");
  const size_t last = html.find("data-x=\"1000007200\"");
  ASSERT_NE(first, std::string::npos);
  EXPECT_LT(first, last);
  EXPECT_EQ(Count(html, "<tr><td>"), 3);  // the sweeps table
}

TEST(TrendsTest, SizesPerChartAreBounded) {
  v1::GetSweepResponse sweep;
  sweep.mutable_sweep()->set_sweep_id("wide");
  for (int i = 0; i < 40; ++i) {
    AddStep(sweep, "all_reduce", uint64_t{8} << i % 40, false);
  }
  const std::string html = RenderTrends({sweep});
  EXPECT_EQ(Count(html, "class=\"point "), kMaxTrendSeries);
  EXPECT_TRUE(absl::StrContains(html, "24 of 40 sizes of all_reduce")) << html;
  // The smallest and the largest are kept.
  EXPECT_TRUE(absl::StrContains(html, "class=\"point size-8\""));
  EXPECT_TRUE(absl::StrContains(
      html, absl::StrCat("class=\"point size-", uint64_t{8} << 39, "\"")));
}

TEST(SweepMetadataTest, FieldsAreShownEscapedAndMissingOnesDashed) {
  v1::GetSweepResponse sweep = Sweep("id<1>", 1796151600, false);
  v1::SweepSummary& s = *sweep.mutable_sweep();
  s.set_error("bad <thing> & \"more\"");
  s.set_backend_version("2.19");
  s.set_straggler("");
  const std::string html = RenderSweepMetadata(s);
  EXPECT_TRUE(absl::StrContains(html, "id&lt;1&gt;")) << html;
  EXPECT_TRUE(absl::StrContains(html, "bad &lt;thing&gt; &amp; &quot;more"));
  EXPECT_TRUE(absl::StrContains(html, "2026-12-01 19:00:00 UTC"));
  EXPECT_TRUE(absl::StrContains(html, "<td class=\"straggler\">-</td>"));
  EXPECT_TRUE(absl::StrContains(html, "<td class=\"backend\">gloo 2.19</td>"));
  EXPECT_TRUE(absl::StrContains(html, "&quot;ops&quot;")) << html;  // spec
  const std::string ranks = RenderRankMap(s);
  EXPECT_TRUE(absl::StrContains(ranks, "2 ranks on 1 node: node-a")) << ranks;
}

TEST(ReportPageTest, SelfContainedAndEscaped) {
  ReportContent content;
  content.selection = "sweep <x>";
  content.tool_version = "fabricpulse test";
  content.generated = absl::FromUnixSeconds(1796151600);
  content.sweeps = {MatrixSweep()};
  content.sweeps[0].mutable_sweep()->add_nodes("<script>alert(1)</script>");
  content.notes = {"a note & more"};
  const std::string page = RenderReportPage(content);
  EXPECT_TRUE(absl::StartsWith(page, "<!DOCTYPE html>"));
  EXPECT_FALSE(absl::StrContains(page, "http://"));
  EXPECT_FALSE(absl::StrContains(page, "https://"));
  EXPECT_FALSE(absl::StrContains(page, "<script"));
  EXPECT_FALSE(absl::StrContains(page, "<x>"));
  EXPECT_TRUE(absl::StrContains(page, "a note &amp; more"));
  EXPECT_TRUE(absl::StrContains(page, "<section class=\"sweep\" id=\"s0\""));
  EXPECT_TRUE(absl::StrContains(page, "<section class=\"pair-matrix\">"));
  EXPECT_FALSE(absl::StrContains(page, "class=\"trends\""));
  content.history = content.sweeps;
  EXPECT_TRUE(absl::StrContains(RenderReportPage(content), "class=\"trends\""));
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::client::report
