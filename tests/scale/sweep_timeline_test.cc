#include "tests/scale/sweep_timeline.h"

#include "gtest/gtest.h"

namespace fabricpulse::scale {
namespace {
namespace FP_UNITY_ID {

SweepTimeline Timeline(absl::Time t0, std::vector<int> result_ms, bool ok) {
  SweepTimeline t;
  t.called = t0;
  t.started = t0 + absl::Milliseconds(2);
  for (int ms : result_ms) t.results.push_back(t0 + absl::Milliseconds(ms));
  t.ended =
      t0 + absl::Milliseconds(result_ms.empty() ? 3 : result_ms.back() + 1);
  t.ok = ok;
  t.nodes = 4;
  t.nranks = 8;
  return t;
}

TEST(SweepTimelineTest, SummarizesSuccessfulSweeps) {
  const absl::Time t0 = absl::UnixEpoch();
  const OverheadReport r =
      Summarize({Timeline(t0, {5, 6, 8}, true),
                 Timeline(t0, {12, 13, 14}, true), Timeline(t0, {}, false)});
  EXPECT_EQ(r.sweeps, 3);
  EXPECT_EQ(r.failed, 1);
  EXPECT_EQ(r.nodes, 4);
  EXPECT_EQ(r.nranks, 8);
  EXPECT_EQ(r.results_per_sweep, 3u);
  // Inter-arrival: 1, 2, 1, 1 ms.
  EXPECT_EQ(r.step_overhead.n, 4u);
  EXPECT_NEAR(r.step_overhead.p50, 1, 1e-9);
  EXPECT_NEAR(r.step_overhead.max, 2, 1e-9);
  EXPECT_NEAR(r.started.p50, 2, 1e-9);
  // First result after started: 3 and 10 ms.
  EXPECT_NEAR(r.first_result.max, 10, 1e-9);
  EXPECT_NEAR(r.end_to_end.max, 15, 1e-9);
}

TEST(SweepTimelineTest, JsonIsOneLineWithEveryFigure) {
  const absl::Time t0 = absl::UnixEpoch();
  const std::string json =
      ReportJson(Summarize({Timeline(t0, {5, 6}, true)}), "N=\"64\"");
  EXPECT_EQ(json.find('\n'), std::string::npos);
  for (const char* key :
       {"\"label\": \"N=\\\"64\\\"\"", "\"step_overhead_ms\": {\"n\": 1",
        "\"started_ms\"", "\"first_result_ms\"", "\"sweep_e2e_ms\"",
        "\"failed\": 0", "\"nodes\": 4"}) {
    EXPECT_NE(json.find(key), std::string::npos) << key << " in " << json;
  }
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::scale
