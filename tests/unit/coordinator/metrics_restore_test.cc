// A restarted coordinator shows each plan's last values again: the busbw,
// baseline and regression series and the last success, from the history,
// without counting a regression twice; ad-hoc and failed sweeps restore
// nothing, and an empty history leaves the series absent.
#include "daemon/coordinator/metrics_restore.h"

#include <stdlib.h>

#include <filesystem>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "daemon/coordinator/history_convert.h"
#include "gtest/gtest.h"
#include "prometheus/registry.h"
#include "tests/unit/coordinator/metrics_test_util.h"

namespace fabricpulse::coordinator {
namespace {

class MetricsRestoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string templ = ::testing::TempDir() + "metrics_restore_test.XXXXXX";
    ASSERT_NE(mkdtemp(templ.data()), nullptr);
    dir_ = templ;
    auto history = HistoryStore::Open(dir_ + "/history.db");
    ASSERT_TRUE(history.ok()) << history.status();
    history_ = std::move(*history);
  }
  void TearDown() override {
    history_.reset();
    std::filesystem::remove_all(dir_);
  }

  // A finished sweep of `plan` at `minute` with one step per size; the
  // step at `regressed_bytes` (if any) is a regression.
  void AddSweep(const std::string& id, const std::string& plan, int minute,
                const std::string& status, double busbw,
                uint64_t regressed_bytes = 0, int baseline_sweeps = 5) {
    SweepRecord r;
    r.id = id;
    r.plan = plan;
    r.trigger = "cli";
    r.nranks = 4;
    r.started = absl::FromUnixSeconds(1'800'000'000 + 60 * minute);
    r.status = kSweepRunning;
    ASSERT_TRUE(history_->BeginSweep(r).ok());
    for (uint64_t bytes : {1024u, 1048576u}) {
      v1::StepResult result;
      result.mutable_step()->set_index(bytes == 1024 ? 0 : 1);
      result.mutable_step()->set_op("all_reduce");
      result.mutable_step()->set_dtype("float");
      result.mutable_step()->set_bytes(bytes);
      result.set_time_seconds(1e-4);
      result.set_busbw_bytes_per_second(busbw);
      result.set_algbw_bytes_per_second(busbw);
      result.set_baseline_busbw_bytes_per_second(2 * busbw);
      result.set_baseline_time_seconds(5e-5);
      result.set_baseline_sweeps(baseline_sweeps);
      result.set_regression(bytes == regressed_bytes);
      ASSERT_TRUE(history_->AddStep(StepRecordFromResult(id, result)).ok());
    }
    ASSERT_TRUE(
        history_->FinishSweep(id, status, "", "", r.started + absl::Seconds(30))
            .ok());
  }

  // The exposition lines of `name` (with labels), one per series.
  std::vector<std::string> Series(const std::string& text,
                                  const std::string& name) {
    std::vector<std::string> out;
    for (absl::string_view line : absl::StrSplit(text, '\n')) {
      if (absl::StartsWith(line, name + "{")) out.emplace_back(line);
    }
    return out;
  }

  std::string dir_;
  std::unique_ptr<HistoryStore> history_;
  prometheus::Registry registry_;
};

TEST_F(MetricsRestoreTest, RestoresEachPlansNewestSucceededSweep) {
  AddSweep("s1", "nightly", 0, kSweepSucceeded, 1e9);
  AddSweep("s2", "nightly", 1, kSweepSucceeded, 2e9, /*regressed=*/1048576);
  AddSweep("s3", "nightly", 2, kSweepFailed, 3e9);  // unfinished work
  AddSweep("s4", "adhoc", 3, kSweepSucceeded, 4e9);
  CoordinatorMetrics metrics(registry_);
  EXPECT_EQ(RestorePlanSeries(*history_, metrics, {"nightly"}),
            2);  // nightly, adhoc
  const std::string text = testing::Serialize(registry_);

  const auto busbw = Series(text, "fabricpulse_busbw_bytes_per_second");
  ASSERT_EQ(busbw.size(), 2u) << text;  // nightly's two sizes only
  for (const std::string& line : busbw) {
    EXPECT_TRUE(absl::StrContains(line, "plan=\"nightly\"")) << line;
    EXPECT_TRUE(absl::EndsWith(line, " 2000000000")) << line;  // s2's
  }
  const auto baseline =
      Series(text, "fabricpulse_baseline_busbw_bytes_per_second");
  EXPECT_EQ(baseline.size(), 2u);
  int regressed = 0;
  for (const std::string& line : Series(text, "fabricpulse_regression")) {
    regressed += absl::EndsWith(line, " 1");
  }
  EXPECT_EQ(regressed, 1);
  // Restoring does not count the regression a second time.
  for (const std::string& line :
       Series(text, "fabricpulse_regressions_total")) {
    EXPECT_TRUE(absl::EndsWith(line, " 0")) << line;
  }
  // The ad-hoc sweep's last success is kept, its step series are not.
  EXPECT_EQ(Series(text, "fabricpulse_last_success_timestamp_seconds").size(),
            2u);
}

// A step judged by an older coordinator against a single sweep (no
// baseline count) restores neither a baseline nor a regression.
TEST_F(MetricsRestoreTest, AStepWithoutEnoughBaselineSweepsRestoresNoVerdict) {
  AddSweep("s1", "nightly", 0, kSweepSucceeded, 1e9, /*regressed=*/1048576,
           /*baseline_sweeps=*/0);
  CoordinatorMetrics metrics(registry_);
  EXPECT_EQ(RestorePlanSeries(*history_, metrics, {"nightly"}), 1);
  const std::string text = testing::Serialize(registry_);
  EXPECT_EQ(Series(text, "fabricpulse_busbw_bytes_per_second").size(), 2u);
  EXPECT_TRUE(
      Series(text, "fabricpulse_baseline_busbw_bytes_per_second").empty());
  const auto regression = Series(text, "fabricpulse_regression");
  EXPECT_EQ(regression.size(), 2u);
  for (const std::string& line : regression) {
    EXPECT_TRUE(absl::EndsWith(line, " 0")) << line;
  }
}

// Issue 29, item 3: the confirmed series comes back as the sweep left it:
// the step at 1 MiB regressed in the newest sweep and in the one before
// (confirmed); in a second plan only in the newest (not confirmed).
TEST_F(MetricsRestoreTest, TheConfirmedRegressionIsRestoredAsItWas) {
  AddSweep("a1", "nightly", 0, kSweepSucceeded, 1e9, /*regressed=*/1048576);
  AddSweep("a2", "nightly", 1, kSweepSucceeded, 1e9, /*regressed=*/1048576);
  AddSweep("b1", "hourly", 2, kSweepSucceeded, 1e9);
  AddSweep("b2", "hourly", 3, kSweepSucceeded, 1e9, /*regressed=*/1048576);
  CoordinatorMetrics metrics(registry_);
  EXPECT_EQ(RestorePlanSeries(*history_, metrics, {"nightly", "hourly"}), 2);
  const std::string text = testing::Serialize(registry_);
  int confirmed_nightly = 0, confirmed_hourly = 0;
  for (const std::string& line :
       Series(text, "fabricpulse_regression_confirmed")) {
    if (!absl::EndsWith(line, " 1")) continue;
    confirmed_nightly += absl::StrContains(line, "plan=\"nightly\"");
    confirmed_hourly += absl::StrContains(line, "plan=\"hourly\"");
  }
  EXPECT_EQ(confirmed_nightly, 1) << text;
  EXPECT_EQ(confirmed_hourly, 0) << text;
}

// Issue 29, item 7: a plan removed from the config restores nothing (its
// 62 series came back after a restart, and FabricPulseNoRecentSuccess would
// fire for it); the configured plan beside it still does.
TEST_F(MetricsRestoreTest, ARemovedPlanRestoresNothing) {
  AddSweep("s1", "nightly", 0, kSweepSucceeded, 1e9);
  AddSweep("s2", "retired", 1, kSweepSucceeded, 2e9);
  CoordinatorMetrics metrics(registry_);
  EXPECT_EQ(RestorePlanSeries(*history_, metrics, {"nightly"}), 1);
  const std::string text = testing::Serialize(registry_);
  EXPECT_FALSE(absl::StrContains(text, "plan=\"retired\"")) << text;
  EXPECT_EQ(Series(text, "fabricpulse_busbw_bytes_per_second").size(), 2u);
  EXPECT_EQ(Series(text, "fabricpulse_last_success_timestamp_seconds").size(),
            1u);
}

TEST_F(MetricsRestoreTest, AnEmptyHistoryLeavesTheSeriesAbsent) {
  AddSweep("s1", "nightly", 0, kSweepFailed, 1e9);
  CoordinatorMetrics metrics(registry_);
  EXPECT_EQ(RestorePlanSeries(*history_, metrics, {"nightly"}), 0);
  const std::string text = testing::Serialize(registry_);
  EXPECT_TRUE(Series(text, "fabricpulse_busbw_bytes_per_second").empty());
  EXPECT_TRUE(Series(text, "fabricpulse_regression").empty());
  EXPECT_TRUE(
      Series(text, "fabricpulse_last_success_timestamp_seconds").empty());
}

}  // namespace
}  // namespace fabricpulse::coordinator
