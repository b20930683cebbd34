// The recorder's regression path over a real history and registry: a step
// is judged against enough succeeded sweeps as it arrives (the client sees
// the verdict), but baseline and regression series come only from a plan's
// sweep that succeeded; an aborted or failed sweep, or an ad-hoc one,
// raises none, and unfinished sweeps never form a baseline.
#include "daemon/coordinator/sweep_recorder.h"

#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <optional>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "prometheus/registry.h"
#include "tests/fakes/fake_clock.h"
#include "tests/unit/coordinator/metrics_test_util.h"

namespace fabricpulse::coordinator {
namespace {

using ::fabricpulse::testing::Serialize;
using ::fabricpulse::testing::ValueOf;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr uint64_t kBytes = 1024;  // latency-bound: judged on time
constexpr int kRanks = 4;
constexpr char kTopology[] = "gloo|node-a:2,node-b:2";

class SweepRecorderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string templ = ::testing::TempDir() + "sweep_recorder_test.XXXXXX";
    ASSERT_NE(mkdtemp(templ.data()), nullptr);
    dir_ = templ;
    auto history = HistoryStore::Open(dir_ + "/history.db");
    ASSERT_TRUE(history.ok()) << history.status();
    history_ = std::move(*history);
    metrics_ = std::make_unique<CoordinatorMetrics>(registry_);
  }
  void TearDown() override {
    history_.reset();
    std::filesystem::remove_all(dir_);
  }

  // A finished sweep of `plan` whose one step (all_reduce, kBytes) took
  // `seconds`.
  void AddPastSweep(const std::string& plan, double seconds,
                    const std::string& status = kSweepSucceeded,
                    const std::string& version = "",
                    const std::string& topology = kTopology) {
    SweepRecord r;
    r.id = absl::StrCat("past-", ++past_);
    r.plan = plan;
    r.trigger = "cli";
    r.nranks = kRanks;
    r.topology = topology;
    r.backend_version = version;
    r.started = absl::FromUnixSeconds(1'700'000'000 + past_);
    ASSERT_TRUE(history_->BeginSweep(r).ok());
    StepRecord step;
    step.sweep_id = r.id;
    step.op = "all_reduce";
    step.dtype = "float";
    step.bytes = kBytes;
    step.time_seconds = seconds;
    step.busbw = 1.5 * kBytes / seconds;
    ASSERT_TRUE(history_->AddStep(step).ok());
    if (status != kSweepRunning) {
      ASSERT_TRUE(
          history_
              ->FinishSweep(r.id, status, "", "", r.started + absl::Seconds(1))
              .ok());
    }
  }

  // Runs a sweep of `plan` through a recorder: one step taking `seconds`,
  // ending with `end`. Returns the result as the client saw it.
  v1::StepResult Record(const std::string& plan, double seconds,
                        absl::Status end, const std::string& trigger = "cli") {
    SweepPlan sweep;
    sweep.sweep_id = absl::StrCat("now-", ++now_);
    sweep.plan_name = plan;
    sweep.topology = now_topology_;
    sweep.backend_version = now_version_;
    sweep.rank_nodes = {"node-a", "node-a", "node-b", "node-b"};
    sweep.nranks = kRanks;
    SweepRecorder recorder(sweep, trigger, &config_, history_.get(),
                           metrics_.get(), &clock_);
    const std::string verdicts_before = Verdicts();
    EXPECT_TRUE(recorder.Begin().ok());
    v1::SweepEvent event;
    v1::StepResult* result = event.mutable_result();
    result->mutable_step()->set_op("all_reduce");
    result->mutable_step()->set_dtype("float");
    result->mutable_step()->set_bytes(kBytes);
    result->set_time_seconds(seconds);
    result->set_busbw_bytes_per_second(1.5 * kBytes / seconds);
    result->set_slowest_rank(0);
    recorder.OnEvent(event);
    // Nothing judged is exported while the sweep runs.
    EXPECT_EQ(Verdicts(), verdicts_before);
    recorder.Finish(end, std::nullopt, absl::Seconds(1));
    return event.result();
  }

  // The baseline and regression series, as exposed.
  std::string Verdicts() {
    std::string out;
    for (absl::string_view line : absl::StrSplit(Serialize(registry_), '\n')) {
      if (absl::StartsWith(line, "fabricpulse_regression") ||
          absl::StartsWith(line, "fabricpulse_baseline")) {
        absl::StrAppend(&out, line, "\n");
      }
    }
    return out;
  }

  std::string Metric(const std::string& name, const std::string& plan) {
    return ValueOf(
        Serialize(registry_),
        absl::StrCat(name,
                     "{dtype=\"float\",nranks=\"4\",op=\"all_reduce\","
                     "placement=\"out_of_place\",plan=\"",
                     plan, "\",size=\"1024\"}"));
  }
  std::string Regressions(const std::string& plan) {
    return ValueOf(Serialize(registry_),
                   absl::StrCat("fabricpulse_regressions_total{op=\"all_"
                                "reduce\",plan=\"",
                                plan, "\"}"));
  }

  std::string dir_;
  core::CoordinatorConfig config_;  // min_sweeps 5, window 10, 0.9
  fakes::FakeClock clock_;
  prometheus::Registry registry_;
  std::unique_ptr<HistoryStore> history_;
  std::unique_ptr<CoordinatorMetrics> metrics_;
  int past_ = 0;
  int now_ = 0;
  // What Record's sweeps run on.
  std::string now_version_;
  std::string now_topology_ = kTopology;

  // The baseline change the newest sweep's history record keeps.
  std::string StoredChange() {
    auto newest = history_->ListSweeps(1);
    EXPECT_TRUE(newest.ok()) << newest.status();
    return newest.ok() && !newest->empty() ? newest->at(0).baseline_change
                                           : "(none)";
  }
};

TEST_F(SweepRecorderTest, ASucceededPlanSweepPublishesItsRegression) {
  for (double t : {100e-6, 102e-6, 98e-6, 101e-6, 99e-6}) {
    AddPastSweep("nightly", t);
  }
  const v1::StepResult result =
      Record("nightly", 1e-3, absl::OkStatus());  // 10x slower
  EXPECT_TRUE(result.regression());
  EXPECT_EQ(result.baseline_sweeps(), 5);
  EXPECT_DOUBLE_EQ(result.baseline_time_seconds(), 100e-6);
  EXPECT_GT(result.baseline_busbw_bytes_per_second(), 0);
  EXPECT_EQ(Metric("fabricpulse_regression", "nightly"), "1");
  EXPECT_NE(Metric("fabricpulse_baseline_busbw_bytes_per_second", "nightly"),
            "");
  EXPECT_EQ(Regressions("nightly"), "1");
}

// An isolation's sweep (auto_isolator.h) is stored, never judged, never
// exported per step, and never part of a later baseline.
TEST_F(SweepRecorderTest, AnIsolationSweepIsNeitherJudgedNorABaseline) {
  for (int i = 0; i < 5; ++i) AddPastSweep("adhoc", 100e-6);
  const v1::StepResult result =
      Record("adhoc", 1e-3, absl::OkStatus(), "isolation:parent");
  EXPECT_FALSE(result.regression());
  EXPECT_EQ(result.baseline_sweeps(), 0);
  EXPECT_EQ(Metric("fabricpulse_busbw_bytes_per_second", "adhoc"), "");
  EXPECT_EQ(ValueOf(Serialize(registry_),
                    "fabricpulse_sweeps_total{outcome=\"succeeded\",plan="
                    "\"adhoc\",trigger=\"isolation\"}"),
            "1");
  auto samples = history_->BaselineSamples(
      "adhoc", "all_reduce", "float", kBytes, kRanks, kTopology, "", false, 10);
  ASSERT_TRUE(samples.ok()) << samples.status();
  EXPECT_EQ(samples->size(), 5u);  // the isolation's 1e-3 is not among them
}

TEST_F(SweepRecorderTest, AHealthyPlanSweepStaysSilent) {
  for (double t : {100e-6, 102e-6, 98e-6, 101e-6, 99e-6}) {
    AddPastSweep("nightly", t);
  }
  const v1::StepResult result = Record("nightly", 101.5e-6, absl::OkStatus());
  EXPECT_FALSE(result.regression());
  EXPECT_EQ(result.baseline_sweeps(), 5);
  EXPECT_EQ(Metric("fabricpulse_regression", "nightly"), "0");
  EXPECT_EQ(Regressions("nightly"), "0");
}

TEST_F(SweepRecorderTest, AnAbortedAdhocSweepRaisesNoRegressionMetric) {
  for (int i = 0; i < 5; ++i) AddPastSweep("adhoc", 100e-6);
  const v1::StepResult result =
      Record("adhoc", 1e-3, absl::AbortedError("aborted by request"));
  // The client still sees the comparison ...
  EXPECT_TRUE(result.regression());
  EXPECT_EQ(result.baseline_sweeps(), 5);
  // ... but nothing reaches the alerts.
  const std::string text = Serialize(registry_);
  EXPECT_THAT(text, Not(HasSubstr("fabricpulse_regression{")));
  EXPECT_THAT(text, Not(HasSubstr("fabricpulse_regressions_total{")));
  EXPECT_THAT(text,
              Not(HasSubstr("fabricpulse_baseline_busbw_bytes_per_second{")));
  // Nor does a succeeded ad-hoc sweep.
  EXPECT_TRUE(Record("adhoc", 1e-3, absl::OkStatus()).regression());
  EXPECT_THAT(Serialize(registry_), Not(HasSubstr("fabricpulse_regression")));
}

TEST_F(SweepRecorderTest, AnAbortedOrFailedPlanSweepPublishesNoVerdict) {
  for (int i = 0; i < 5; ++i) AddPastSweep("nightly", 100e-6);
  EXPECT_TRUE(
      Record("nightly", 1e-3, absl::AbortedError("aborted")).regression());
  EXPECT_TRUE(Record("nightly", 1e-3, absl::DeadlineExceededError("hung"))
                  .regression());
  EXPECT_THAT(Serialize(registry_), Not(HasSubstr("fabricpulse_regression")));
  // Their measurements are shown, as measured.
  EXPECT_EQ(Metric("fabricpulse_busbw_bytes_per_second", "nightly"), "1536000");
}

TEST_F(SweepRecorderTest, UnfinishedSweepsNeverEnterTheBaseline) {
  for (int i = 0; i < 4; ++i) AddPastSweep("nightly", 100e-6);
  AddPastSweep("nightly", 1e-6, kSweepAborted);
  AddPastSweep("nightly", 1e-6, kSweepFailed);
  AddPastSweep("nightly", 1e-6, kSweepInterrupted);
  AddPastSweep("nightly", 1e-6, kSweepRunning);
  // 4 succeeded sweeps: below min_sweeps, no baseline at all.
  v1::StepResult result = Record("nightly", 1e-3, absl::OkStatus());
  EXPECT_FALSE(result.regression());
  EXPECT_EQ(result.baseline_sweeps(), 0);
  EXPECT_FALSE(result.has_baseline_time_seconds());
  EXPECT_EQ(result.baseline_busbw_bytes_per_second(), 0);
  EXPECT_EQ(Metric("fabricpulse_regression", "nightly"), "0");
  EXPECT_THAT(Serialize(registry_),
              Not(HasSubstr("fabricpulse_baseline_busbw_bytes_per_second{")));
  // That succeeded sweep is the fifth: the next one is judged, against
  // the succeeded sweeps only (median 100 us, not 1 us).
  result = Record("nightly", 105e-6, absl::OkStatus());
  EXPECT_EQ(result.baseline_sweeps(), 5);
  EXPECT_DOUBLE_EQ(result.baseline_time_seconds(), 100e-6);
  EXPECT_FALSE(result.regression());
}

std::string BaselineChanges(prometheus::Registry& registry,
                            const std::string& cause) {
  return ValueOf(Serialize(registry),
                 absl::StrCat("fabricpulse_baseline_changes_total{cause=\"",
                              cause, "\",plan=\"nightly\"}"));
}

// Same version and topology: the baseline applies and a slowdown regresses
// (the tests above), and the sweep carries no baseline change note.
TEST_F(SweepRecorderTest, SameVersionAndTopologyJudgeAsUsual) {
  for (int i = 0; i < 5; ++i) {
    AddPastSweep("nightly", 100e-6, kSweepSucceeded, "nccl 2.28.9");
  }
  now_version_ = "nccl 2.28.9";
  EXPECT_TRUE(Record("nightly", 1e-3, absl::OkStatus()).regression());
  EXPECT_EQ(StoredChange(), "");
  EXPECT_EQ(BaselineChanges(registry_, "backend_version"), "");
}

TEST_F(SweepRecorderTest, AnUpgradeIsAChangeNotARegression) {
  for (int i = 0; i < 5; ++i) {
    AddPastSweep("nightly", 100e-6, kSweepSucceeded, "nccl 2.28.9");
  }
  now_version_ = "nccl 2.29.1";
  v1::StepResult result = Record("nightly", 1e-3, absl::OkStatus());
  EXPECT_FALSE(result.regression());
  EXPECT_EQ(result.baseline_sweeps(), 0);
  EXPECT_FALSE(result.has_baseline_time_seconds());
  EXPECT_EQ(StoredChange(),
            "nccl 2.28.9 -> nccl 2.29.1: new baseline from this sweep");
  EXPECT_EQ(BaselineChanges(registry_, "backend_version"), "1");
  EXPECT_EQ(BaselineChanges(registry_, "topology"), "");
  EXPECT_EQ(Metric("fabricpulse_regression", "nightly"), "0");
  // Said once: the next sweep of the new version has nothing to say, and
  // is judged against the new version's sweeps only (one: no baseline).
  result = Record("nightly", 1e-3, absl::OkStatus());
  EXPECT_EQ(StoredChange(), "");
  EXPECT_EQ(result.baseline_sweeps(), 0);
  EXPECT_EQ(BaselineChanges(registry_, "backend_version"), "1");
}

TEST_F(SweepRecorderTest, AFailedSweepAfterAChangeLeavesItToTheNext) {
  for (int i = 0; i < 5; ++i) AddPastSweep("nightly", 100e-6);
  now_version_ = "0.6";
  Record("nightly", 1e-3, absl::DeadlineExceededError("hung"));
  EXPECT_NE(StoredChange(), "");
  EXPECT_EQ(BaselineChanges(registry_, "backend_version"), "");
  // The plan's newest good sweep is still of the old version.
  EXPECT_FALSE(Record("nightly", 1e-3, absl::OkStatus()).regression());
  EXPECT_NE(StoredChange(), "");
  EXPECT_EQ(BaselineChanges(registry_, "backend_version"), "1");
}

TEST_F(SweepRecorderTest, OtherHardwareOnTheSameMembersIsAChange) {
  const std::string h100 =
      absl::StrCat(kTopology, ";gpu=NVIDIA H100;nvlink=full");
  for (int i = 0; i < 5; ++i) {
    AddPastSweep("nightly", 100e-6, kSweepSucceeded, "", h100);
  }
  now_topology_ = absl::StrCat(kTopology, ";gpu=NVIDIA H200;nvlink=partial");
  v1::StepResult result = Record("nightly", 1e-3, absl::OkStatus());
  EXPECT_FALSE(result.regression());
  EXPECT_EQ(result.baseline_sweeps(), 0);
  EXPECT_EQ(StoredChange(),
            "topology gpu=NVIDIA H100;nvlink=full -> gpu=NVIDIA "
            "H200;nvlink=partial: new baseline from this sweep");
  EXPECT_EQ(BaselineChanges(registry_, "topology"), "1");
}

TEST_F(SweepRecorderTest, OtherMembersAreAnotherBaselineNotAChange) {
  for (int i = 0; i < 5; ++i) {
    AddPastSweep("nightly", 100e-6, kSweepSucceeded, "", "gloo|node-c:4");
  }
  Record("nightly", 1e-3, absl::OkStatus());
  EXPECT_EQ(StoredChange(), "");
}

}  // namespace
}  // namespace fabricpulse::coordinator
