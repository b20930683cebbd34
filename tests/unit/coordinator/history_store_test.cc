#include "daemon/coordinator/store/history_store.h"

#include <signal.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "daemon/coordinator/store/schema.h"
#include "daemon/core/sweep_outcome.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/coordinator/history_db_test.h"

namespace fabricpulse::coordinator {
namespace {
namespace FP_UNITY_ID {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

absl::Time T(int64_t seconds) { return absl::FromUnixSeconds(seconds); }

SweepRecord MakeSweep(const std::string& id, int64_t started,
                      const std::string& plan = "nightly", int nranks = 8,
                      const std::string& topology = "topo-a") {
  SweepRecord sweep;
  sweep.id = id;
  sweep.plan = plan;
  sweep.trigger = "schedule:nightly";
  sweep.spec_json = R"({"ops":["all_reduce"]})";
  sweep.nodes = {"node-b", "node-a"};
  sweep.nranks = nranks;
  sweep.topology = topology;
  sweep.backend = "gloo";
  sweep.backend_version = "0.5.0";
  sweep.started = T(started);
  sweep.comm_init_seconds = 1.25;
  sweep.comm_reused = true;
  return sweep;
}

StepRecord MakeStep(const std::string& sweep_id, int index, double busbw,
                    const std::string& op = "all_reduce",
                    uint64_t bytes = 1 << 20, bool in_place = false,
                    const std::string& dtype = "float") {
  StepRecord step;
  step.sweep_id = sweep_id;
  step.index = index;
  step.op = op;
  step.bytes = bytes;
  step.count = bytes / 4;
  step.dtype = dtype;
  step.redop = "sum";
  step.root = -1;
  step.in_place = in_place;
  step.time_seconds = 0.001 * (index + 1);
  step.algbw = busbw / 2;
  step.busbw = busbw;
  step.wrong = index;
  step.slowest_rank = 3;
  step.min_rank_time_seconds = 0.0009;
  step.max_rank_time_seconds = 0.0011;
  step.p50_seconds = 0.001;
  step.p99_seconds = 0.0012;
  step.regression = index % 2 == 1;
  step.baseline_busbw = 42.5;
  if (index % 2 == 1) {
    // Not measured: absent, and stored as absent.
    step.p50_seconds.reset();
    step.p99_seconds.reset();
  } else {
    step.last_arrival_rank = 2;
    step.arrival_lateness_seconds = 0.0005;
  }
  if (index > 0) step.wrong_by_rank = {{1, index}, {3, 2 * index}};
  step.baseline_sweeps = index % 2 == 1 ? 5 : 0;
  step.baseline_time_seconds = index % 2 == 1 ? 0.0015 : 0;
  step.iterations = 20 + index;
  return step;
}

void ExpectSameSweep(const SweepRecord& a, const SweepRecord& b) {
  EXPECT_EQ(a.id, b.id);
  EXPECT_EQ(a.plan, b.plan);
  EXPECT_EQ(a.trigger, b.trigger);
  EXPECT_EQ(a.spec_json, b.spec_json);
  EXPECT_EQ(a.nodes, b.nodes);
  EXPECT_EQ(a.nranks, b.nranks);
  EXPECT_EQ(a.topology, b.topology);
  EXPECT_EQ(a.backend, b.backend);
  EXPECT_EQ(a.backend_version, b.backend_version);
  EXPECT_EQ(a.started, b.started);
  EXPECT_EQ(a.finished, b.finished);
  EXPECT_EQ(a.status, b.status);
  EXPECT_EQ(a.error, b.error);
  EXPECT_EQ(a.diagnosis, b.diagnosis);
  EXPECT_EQ(a.comm_init_seconds, b.comm_init_seconds);
  EXPECT_EQ(a.comm_reused, b.comm_reused);
  EXPECT_EQ(a.straggler, b.straggler);
}

void ExpectSameStep(const StepRecord& a, const StepRecord& b) {
  EXPECT_EQ(a.sweep_id, b.sweep_id);
  EXPECT_EQ(a.index, b.index);
  EXPECT_EQ(a.op, b.op);
  EXPECT_EQ(a.bytes, b.bytes);
  EXPECT_EQ(a.count, b.count);
  EXPECT_EQ(a.dtype, b.dtype);
  EXPECT_EQ(a.redop, b.redop);
  EXPECT_EQ(a.root, b.root);
  EXPECT_EQ(a.in_place, b.in_place);
  EXPECT_EQ(a.time_seconds, b.time_seconds);
  EXPECT_EQ(a.algbw, b.algbw);
  EXPECT_EQ(a.busbw, b.busbw);
  EXPECT_EQ(a.wrong, b.wrong);
  EXPECT_EQ(a.slowest_rank, b.slowest_rank);
  EXPECT_EQ(a.min_rank_time_seconds, b.min_rank_time_seconds);
  EXPECT_EQ(a.max_rank_time_seconds, b.max_rank_time_seconds);
  EXPECT_EQ(a.p50_seconds, b.p50_seconds);
  EXPECT_EQ(a.p99_seconds, b.p99_seconds);
  EXPECT_EQ(a.regression, b.regression);
  EXPECT_EQ(a.baseline_busbw, b.baseline_busbw);
  EXPECT_EQ(a.wrong_by_rank, b.wrong_by_rank);
  EXPECT_EQ(a.last_arrival_rank, b.last_arrival_rank);
  EXPECT_EQ(a.arrival_lateness_seconds, b.arrival_lateness_seconds);
  EXPECT_EQ(a.baseline_time_seconds, b.baseline_time_seconds);
  EXPECT_EQ(a.baseline_sweeps, b.baseline_sweeps);
  EXPECT_EQ(a.iterations, b.iterations);
  EXPECT_EQ(a.round, b.round);
  ASSERT_EQ(a.pairs.size(), b.pairs.size());
  for (size_t i = 0; i < a.pairs.size(); ++i) {
    EXPECT_EQ(a.pairs[i].rank_a, b.pairs[i].rank_a);
    EXPECT_EQ(a.pairs[i].rank_b, b.pairs[i].rank_b);
    EXPECT_EQ(a.pairs[i].node_a, b.pairs[i].node_a);
    EXPECT_EQ(a.pairs[i].node_b, b.pairs[i].node_b);
    EXPECT_EQ(a.pairs[i].path, b.pairs[i].path);
    EXPECT_EQ(a.pairs[i].time_seconds, b.pairs[i].time_seconds);
    EXPECT_EQ(a.pairs[i].algbw, b.pairs[i].algbw);
    EXPECT_EQ(a.pairs[i].busbw, b.pairs[i].busbw);
    EXPECT_EQ(a.pairs[i].wrong, b.pairs[i].wrong);
    EXPECT_EQ(a.pairs[i].flagged, b.pairs[i].flagged);
  }
}

using HistoryStoreTest = HistoryDbTest;

TEST_F(HistoryStoreTest, RoundTripsEveryField) {
  std::unique_ptr<HistoryStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  SweepRecord sweep = MakeSweep("s1", 1000);
  sweep.started = T(1000) + absl::Nanoseconds(123);
  ASSERT_TRUE(store->BeginSweep(sweep).ok());
  StepRecord big = MakeStep("s1", 1, 180.5, "all_gather", 1ull << 40, true);
  big.p50_seconds = 0.002;  // measured p50, unmeasured p99
  ASSERT_TRUE(store->AddStep(MakeStep("s1", 0, 90.25)).ok());
  ASSERT_TRUE(store->AddStep(big).ok());
  ASSERT_TRUE(store->RecordStraggler("s1", "rank 1 (node b)").ok());
  ASSERT_TRUE(store
                  ->FinishSweep("s1", "failed", "rank 3 hung",
                                "{\"culprit\":3}", T(2000))
                  .ok());

  absl::StatusOr<SweepWithSteps> got = store->GetSweep("s1");
  ASSERT_TRUE(got.ok()) << got.status();
  sweep.status = "failed";
  sweep.error = "rank 3 hung";
  sweep.diagnosis = "{\"culprit\":3}";
  sweep.finished = T(2000);
  sweep.straggler = "rank 1 (node b)";
  ExpectSameSweep(got->sweep, sweep);
  ASSERT_EQ(got->steps.size(), 2u);
  ExpectSameStep(got->steps[0], MakeStep("s1", 0, 90.25));
  ExpectSameStep(got->steps[1], big);
}

// A pairwise matrix's rounds keep their round and their pairs; the other
// steps have neither.
TEST_F(HistoryStoreTest, RoundTripsPairwiseRounds) {
  std::unique_ptr<HistoryStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->BeginSweep(MakeSweep("m1", 1000)).ok());
  StepRecord plain = MakeStep("m1", 0, 10);
  std::vector<StepRecord> rounds;
  for (int r = 0; r < 3; ++r) {
    StepRecord round = MakeStep("m1", r + 1, 10, "pairwise");
    round.round = r;
    for (int p = 0; p < 2; ++p) {
      PairRecord pair;
      pair.rank_a = p;
      pair.rank_b = 3 - p;
      pair.node_a = "node-a";
      pair.node_b = p == 0 ? "node-b" : "node-a";
      pair.path = p == 0 ? "network" : "pcie_shm";
      pair.time_seconds = 0.001 * (r + 1);
      pair.algbw = 1e9 / (r + 1);
      pair.busbw = pair.algbw;
      pair.wrong = r;
      pair.flagged = r == 2 && p == 0;
      round.pairs.push_back(pair);
    }
    rounds.push_back(round);
  }
  ASSERT_TRUE(store->AddStep(plain).ok());
  for (const StepRecord& round : rounds) {
    ASSERT_TRUE(store->AddStep(round).ok());
  }
  absl::StatusOr<SweepWithSteps> got = store->GetSweep("m1");
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_EQ(got->steps.size(), 4u);
  ExpectSameStep(got->steps[0], plain);
  for (int r = 0; r < 3; ++r) ExpectSameStep(got->steps[r + 1], rounds[r]);
  // Pruning the sweep takes its pairs with it (ON DELETE CASCADE).
  ASSERT_TRUE(store->FinishSweep("m1", "succeeded", "", "", T(2000)).ok());
  RawExec("PRAGMA foreign_keys = ON; DELETE FROM sweeps WHERE id = 'm1'");
  EXPECT_EQ(RawCount("SELECT COUNT(*) FROM step_pairs"), 0);
}

TEST_F(HistoryStoreTest, FinishesWithAnEmptyErrorAndRecordsTheComm) {
  std::unique_ptr<HistoryStore> store = OpenStore();
  ASSERT_TRUE(store->BeginSweep(MakeSweep("s1", 10)).ok());
  ASSERT_TRUE(store->RecordComm("s1", 0.25, false).ok());
  // absl::Status::message() of an OK status: an empty view with null data.
  ASSERT_TRUE(
      store->FinishSweep("s1", "succeeded", absl::string_view(), "", T(20))
          .ok());
  absl::StatusOr<SweepWithSteps> got = store->GetSweep("s1");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->sweep.status, "succeeded");
  EXPECT_EQ(got->sweep.error, "");
  EXPECT_DOUBLE_EQ(got->sweep.comm_init_seconds, 0.25);
  EXPECT_FALSE(got->sweep.comm_reused);
}

TEST_F(HistoryStoreTest, BeginRecordsRunningUnfinished) {
  std::unique_ptr<HistoryStore> store = OpenStore();
  SweepRecord sweep = MakeSweep("s1", 10);
  sweep.status = "succeeded";
  sweep.finished = T(20);
  ASSERT_TRUE(store->BeginSweep(sweep).ok());
  absl::StatusOr<SweepWithSteps> got = store->GetSweep("s1");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->sweep.status, "running");
  EXPECT_EQ(got->sweep.finished, absl::InfinitePast());
  EXPECT_THAT(got->steps, IsEmpty());
}

TEST_F(HistoryStoreTest, ReportsBadCalls) {
  std::unique_ptr<HistoryStore> store = OpenStore();
  ASSERT_TRUE(store->BeginSweep(MakeSweep("s1", 10)).ok());
  EXPECT_EQ(store->BeginSweep(MakeSweep("s1", 11)).code(),
            absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(store->BeginSweep(MakeSweep("", 11)).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(store->AddStep(MakeStep("nope", 0, 1)).code(),
            absl::StatusCode::kNotFound);
  ASSERT_TRUE(store->AddStep(MakeStep("s1", 0, 1)).ok());
  EXPECT_EQ(store->AddStep(MakeStep("s1", 0, 2)).code(),
            absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(store->FinishSweep("s1", "running", "", "", T(20)).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(store->FinishSweep("s1", "done", "", "", T(20)).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(store->FinishSweep("nope", "failed", "", "", T(20)).code(),
            absl::StatusCode::kNotFound);
  ASSERT_TRUE(store->FinishSweep("s1", "succeeded", "", "", T(20)).ok());
  absl::Status again = store->FinishSweep("s1", "failed", "", "", T(21));
  EXPECT_EQ(again.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(again.message()), HasSubstr("already succeeded"));
  EXPECT_EQ(store->AddStep(MakeStep("s1", 1, 1)).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(store->GetSweep("nope").status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(store->ListSweeps(0).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(HistoryStoreTest, ListsNewestFirstWithoutSteps) {
  std::unique_ptr<HistoryStore> store = OpenStore();
  for (const auto& [id, started] : std::vector<std::pair<std::string, int>>{
           {"a", 100}, {"c", 300}, {"b", 200}, {"d", 300}}) {
    ASSERT_TRUE(store->BeginSweep(MakeSweep(id, started)).ok());
    ASSERT_TRUE(store->AddStep(MakeStep(id, 0, 1)).ok());
  }
  absl::StatusOr<std::vector<SweepRecord>> all = store->ListSweeps(10);
  ASSERT_TRUE(all.ok()) << all.status();
  std::vector<std::string> ids;
  for (const SweepRecord& sweep : *all) ids.push_back(sweep.id);
  // "d" and "c" started together; "d" was begun later.
  EXPECT_THAT(ids, ElementsAre("d", "c", "b", "a"));
  EXPECT_THAT((*all)[0].nodes, ElementsAre("node-b", "node-a"));

  absl::StatusOr<std::vector<SweepRecord>> two = store->ListSweeps(2);
  ASSERT_TRUE(two.ok());
  ASSERT_EQ(two->size(), 2u);
  EXPECT_EQ((*two)[1].id, "c");
}

TEST_F(HistoryStoreTest, MarksRunningSweepsInterrupted) {
  std::unique_ptr<HistoryStore> store = OpenStore();
  ASSERT_TRUE(store->BeginSweep(MakeSweep("done", 10)).ok());
  ASSERT_TRUE(store->FinishSweep("done", "succeeded", "", "", T(11)).ok());
  ASSERT_TRUE(store->BeginSweep(MakeSweep("r1", 20)).ok());
  SweepRecord with_error = MakeSweep("r2", 30);
  with_error.error = "agent node-a lost";
  ASSERT_TRUE(store->BeginSweep(with_error).ok());

  absl::StatusOr<int> marked = store->MarkInterrupted(T(100));
  ASSERT_TRUE(marked.ok()) << marked.status();
  EXPECT_EQ(*marked, 2);
  absl::StatusOr<SweepWithSteps> r1 = store->GetSweep("r1");
  ASSERT_TRUE(r1.ok());
  EXPECT_EQ(r1->sweep.status, "interrupted");
  EXPECT_EQ(r1->sweep.finished, T(100));
  EXPECT_THAT(r1->sweep.error, HasSubstr("coordinator stopped"));
  EXPECT_EQ(store->GetSweep("r2")->sweep.error, "agent node-a lost");
  EXPECT_EQ(store->GetSweep("done")->sweep.status, "succeeded");
  EXPECT_EQ(store->GetSweep("done")->sweep.finished, T(11));
  EXPECT_EQ(*store->MarkInterrupted(T(200)), 0);
}

class BaselineTest : public HistoryStoreTest {
 protected:
  void SetUp() override {
    HistoryStoreTest::SetUp();
    store_ = OpenStore();
    ASSERT_NE(store_, nullptr);
  }

  // A finished sweep with one step of the default key carrying `busbw`
  // (its time: 1 / busbw).
  void AddSweep(const std::string& id, int64_t started, double busbw,
                const std::string& status = "succeeded",
                const std::string& plan = "nightly", int nranks = 8,
                const std::string& topology = "topo-a") {
    ASSERT_TRUE(
        store_->BeginSweep(MakeSweep(id, started, plan, nranks, topology))
            .ok());
    StepRecord step = MakeStep(id, 0, busbw);
    step.time_seconds = 1 / busbw;
    ASSERT_TRUE(store_->AddStep(step).ok());
    if (status != "running") {
      ASSERT_TRUE(store_->FinishSweep(id, status, "", "", T(started + 1)).ok());
    }
  }

  // The busbw of the samples, newest first.
  std::vector<double> Busbw(int window, bool in_place = false) {
    auto samples =
        store_->BaselineSamples("nightly", "all_reduce", "float", 1 << 20, 8,
                                "topo-a", "0.5.0", in_place, window);
    EXPECT_TRUE(samples.ok()) << samples.status();
    std::vector<double> out;
    if (!samples.ok()) return out;
    for (const core::BaselineSample& s : *samples) {
      EXPECT_DOUBLE_EQ(s.time_seconds, 1 / s.busbw);
      out.push_back(s.busbw);
    }
    return out;
  }

  std::unique_ptr<HistoryStore> store_;
};

TEST_F(BaselineTest, SamplesCarryTimeAndBusbwNewestFirst) {
  AddSweep("a", 1, 10);
  AddSweep("b", 2, 30);
  AddSweep("c", 3, 20);
  EXPECT_THAT(Busbw(10), ElementsAre(20, 30, 10));
}

// Unfinished work never enters a baseline: running, failed, aborted and
// interrupted sweeps are left out, however fast or slow they were.
TEST_F(BaselineTest, OnlySucceededSweepsCount) {
  AddSweep("a", 1, 10);
  AddSweep("b", 2, 1000, "failed");
  AddSweep("c", 3, 1000, "aborted");
  AddSweep("d", 4, 1000, "running");
  AddSweep("e", 5, 1000, "interrupted");
  AddSweep("f", 6, 12);
  EXPECT_THAT(Busbw(10), ElementsAre(12, 10));
}

// Issue 29, item 2: a step judged a regression never enters its baseline,
// so a fault that persists stays a regression sweep after sweep instead of
// fading into the baseline; the healthy sweeps around it still count.
TEST_F(BaselineTest, RegressedStepsNeverEnterTheBaseline) {
  AddSweep("a", 1, 10);
  ASSERT_TRUE(store_->BeginSweep(MakeSweep("slow", 2)).ok());
  StepRecord slow = MakeStep("slow", 0, 2);
  slow.time_seconds = 1.0 / 2;
  slow.regression = true;
  ASSERT_TRUE(store_->AddStep(slow).ok());
  ASSERT_TRUE(store_->FinishSweep("slow", "succeeded", "", "", T(3)).ok());
  AddSweep("c", 4, 11);
  EXPECT_THAT(Busbw(10), ElementsAre(11, 10));
  // The window counts sweeps that have a sample: the regressed one is
  // skipped, not counted.
  EXPECT_THAT(Busbw(2), ElementsAre(11, 10));
}

TEST_F(BaselineTest, OnlyTheSameKeyCounts) {
  AddSweep("a", 1, 10);
  AddSweep("other-plan", 2, 1000, "succeeded", "hourly");
  AddSweep("other-ranks", 3, 1000, "succeeded", "nightly", 16);
  AddSweep("other-topo", 4, 1000, "succeeded", "nightly", 8, "topo-b");
  ASSERT_TRUE(store_->BeginSweep(MakeSweep("other-steps", 5)).ok());
  for (StepRecord step :
       {MakeStep("other-steps", 0, 1000, "all_gather"),
        MakeStep("other-steps", 1, 1000, "all_reduce", 2 << 20),
        MakeStep("other-steps", 2, 1000, "all_reduce", 1 << 20, true),
        MakeStep("other-steps", 3, 1000, "all_reduce", 1 << 20, false,
                 "half")}) {
    step.time_seconds = 1.0 / 1000;
    ASSERT_TRUE(store_->AddStep(step).ok());
  }
  ASSERT_TRUE(
      store_->FinishSweep("other-steps", "succeeded", "", "", T(6)).ok());
  EXPECT_THAT(Busbw(10), ElementsAre(10));
  EXPECT_THAT(Busbw(10, /*in_place=*/true), ElementsAre(1000));
}

// A baseline belongs to one backend version: sweeps of another version
// (an NCCL upgrade) never enter it.
TEST_F(BaselineTest, OnlyTheSameBackendVersionCounts) {
  AddSweep("a", 1, 10);
  SweepRecord upgraded = MakeSweep("upgraded", 2);
  upgraded.backend_version = "0.6.0";
  ASSERT_TRUE(store_->BeginSweep(upgraded).ok());
  StepRecord step = MakeStep("upgraded", 0, 1000);
  step.time_seconds = 1.0 / 1000;
  ASSERT_TRUE(store_->AddStep(step).ok());
  ASSERT_TRUE(store_->FinishSweep("upgraded", "succeeded", "", "", T(3)).ok());
  EXPECT_THAT(Busbw(10), ElementsAre(10));
  auto upgraded_samples =
      store_->BaselineSamples("nightly", "all_reduce", "float", 1 << 20, 8,
                              "topo-a", "0.6.0", false, 10);
  ASSERT_TRUE(upgraded_samples.ok()) << upgraded_samples.status();
  ASSERT_EQ(upgraded_samples->size(), 1u);
  EXPECT_EQ((*upgraded_samples)[0].busbw, 1000);
}

// The key a new sweep compares with: the newest good sweep on the same
// members (its topology the shape itself or the shape and ';' hardware).
TEST_F(BaselineTest, NewestBaselineKeyFollowsTheMembersShape) {
  auto none = store_->NewestBaselineKey("nightly", 8, "gloo:ax8");
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_FALSE(none->has_value());
  AddSweep("plain", 1, 10, "succeeded", "nightly", 8, "gloo:ax8");
  AddSweep("gpus", 2, 10, "succeeded", "nightly", 8,
           "gloo:ax8;gpu=NVIDIA H200;nvlink=full");
  // Not the same members, plan or rank count, or not good.
  AddSweep("longer-name", 3, 10, "succeeded", "nightly", 8, "gloo:ax80");
  AddSweep("other-plan", 4, 10, "succeeded", "hourly", 8, "gloo:ax8");
  AddSweep("other-ranks", 5, 10, "succeeded", "nightly", 4, "gloo:ax8");
  AddSweep("failed", 6, 10, "failed", "nightly", 8, "gloo:ax8");
  auto newest = store_->NewestBaselineKey("nightly", 8, "gloo:ax8");
  ASSERT_TRUE(newest.ok()) << newest.status();
  ASSERT_TRUE(newest->has_value());
  EXPECT_EQ((*newest)->topology, "gloo:ax8;gpu=NVIDIA H200;nvlink=full");
  EXPECT_EQ((*newest)->backend_version, "0.5.0");
}

TEST_F(BaselineTest, BaselineChangeIsKept) {
  SweepRecord sweep = MakeSweep("s", 1);
  sweep.baseline_change = "0.5.0 -> 0.6.0: new baseline from this sweep";
  ASSERT_TRUE(store_->BeginSweep(sweep).ok());
  EXPECT_EQ(store_->GetSweep("s")->sweep.baseline_change,
            sweep.baseline_change);
  EXPECT_EQ(store_->ListSweeps(1)->at(0).baseline_change,
            sweep.baseline_change);
}

TEST_F(BaselineTest, WindowTakesTheNewestSweeps) {
  // Started out of insertion order: the window follows start time.
  AddSweep("s5", 50, 5);
  AddSweep("s1", 10, 1);
  AddSweep("s3", 30, 3);
  AddSweep("s2", 20, 2);
  AddSweep("s4", 40, 4);
  EXPECT_THAT(Busbw(3), ElementsAre(5, 4, 3));
  EXPECT_THAT(Busbw(1), ElementsAre(5));
  EXPECT_THAT(Busbw(1000), ElementsAre(5, 4, 3, 2, 1));
}

TEST_F(BaselineTest, NoneAndBadWindow) {
  EXPECT_THAT(Busbw(10), IsEmpty());
  AddSweep("a", 1, 10, "failed");
  EXPECT_THAT(Busbw(10), IsEmpty());
  EXPECT_EQ(store_
                ->BaselineSamples("nightly", "all_reduce", "float", 1 << 20, 8,
                                  "topo-a", "0.5.0", false, 0)
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(HistoryStoreTest, MigratesNewAndEmptyFiles) {
  EXPECT_NE(OpenStore(), nullptr);  // a file that did not exist
  EXPECT_EQ(RawUserVersion(), LatestSchemaVersion());
  std::filesystem::remove_all(dir_);
  std::filesystem::create_directory(dir_);
  std::ofstream(path_).close();  // an empty file
  ASSERT_EQ(std::filesystem::file_size(path_), 0u);
  std::unique_ptr<HistoryStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  EXPECT_TRUE(store->BeginSweep(MakeSweep("s1", 1)).ok());
  store.reset();
  EXPECT_EQ(RawUserVersion(), LatestSchemaVersion());
  EXPECT_NE(OpenStore(), nullptr);  // already current: no migration
}

TEST_F(HistoryStoreTest, MigratesAVersionOneDatabaseKeepingItsSweeps) {
  {
    std::unique_ptr<HistoryStore> store = OpenStore();
    ASSERT_NE(store, nullptr);
    ASSERT_TRUE(store->BeginSweep(MakeSweep("old", 10)).ok());
    ASSERT_TRUE(store->AddStep(MakeStep("old", 1, 5)).ok());
    ASSERT_TRUE(store->FinishSweep("old", "succeeded", "", "", T(11)).ok());
  }
  // What a version-1 coordinator left: no straggler column, no baseline
  // time or sweep count, no per-rank step columns, no iteration count, no
  // baseline change note or versioned baseline index, no pairwise rounds, no
  // mean rank time, no rank map, no isolations.
  RawExec(
      "DROP TABLE node_results; DROP TABLE campaigns; "
      "ALTER TABLE sweeps DROP COLUMN method_key; ALTER TABLE steps DROP "
      "COLUMN wrong_checked; ALTER TABLE steps DROP COLUMN baseline_noisy; "
      "DROP TABLE isolation_rounds; DROP TABLE isolations; "
      "DROP INDEX sweeps_by_versioned_baseline_key; "
      "ALTER TABLE sweeps DROP COLUMN baseline_change; "
      "DROP TABLE sweep_ranks; "
      "ALTER TABLE steps DROP COLUMN mean_rank_time_seconds; "
      "ALTER TABLE sweeps DROP COLUMN straggler; "
      "ALTER TABLE steps DROP COLUMN baseline_time_seconds; "
      "ALTER TABLE steps DROP COLUMN baseline_sweeps; "
      "ALTER TABLE steps DROP COLUMN wrong_by_rank; "
      "ALTER TABLE steps DROP COLUMN last_arrival_rank; "
      "ALTER TABLE steps DROP COLUMN arrival_lateness_seconds; "
      "ALTER TABLE steps DROP COLUMN iterations; "
      "ALTER TABLE steps DROP COLUMN pair_round; DROP TABLE step_pairs; "
      "PRAGMA user_version = 1");
  ASSERT_EQ(RawUserVersion(), 1);
  std::unique_ptr<HistoryStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(RawUserVersion(), LatestSchemaVersion());
  absl::StatusOr<SweepWithSteps> old = store->GetSweep("old");
  ASSERT_TRUE(old.ok()) << old.status();
  EXPECT_EQ(old->sweep.status, "succeeded");
  EXPECT_EQ(old->sweep.straggler, "");
  // Its step was judged by the old rule: kept, but with no baseline count.
  ASSERT_EQ(old->steps.size(), 1u);
  EXPECT_TRUE(old->steps[0].regression);
  EXPECT_EQ(old->steps[0].baseline_sweeps, 0);
  EXPECT_EQ(old->steps[0].baseline_time_seconds, 0);
  EXPECT_EQ(old->steps[0].iterations, 0);  // its spec JSON has no iters
  ASSERT_TRUE(store->BeginSweep(MakeSweep("new", 20)).ok());
  ASSERT_TRUE(store->RecordStraggler("new", "rank 0 (node a)").ok());
  EXPECT_EQ(store->GetSweep("new")->sweep.straggler, "rank 0 (node a)");
  EXPECT_EQ(store->RecordStraggler("nope", "x").code(),
            absl::StatusCode::kNotFound);
}

TEST_F(HistoryStoreTest, RefusesNewerSchema) {
  RawExec("PRAGMA user_version = 99");
  absl::StatusOr<std::unique_ptr<HistoryStore>> store =
      HistoryStore::Open(path_);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(store.status().message()),
              HasSubstr(absl::StrCat("schema version 99 is newer than this "
                                     "coordinator supports (",
                                     LatestSchemaVersion(), ")")));
  EXPECT_EQ(RawUserVersion(), 99);
}

TEST_F(HistoryStoreTest, RefusesNonDatabase) {
  std::ofstream(path_) << std::string(4096, 'x');
  absl::StatusOr<std::unique_ptr<HistoryStore>> store =
      HistoryStore::Open(path_);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(
      HistoryStore::Open(dir_ + "/missing-dir/history.db").status().code(),
      absl::StatusCode::kFailedPrecondition);
}

TEST_F(HistoryStoreTest, ReopenKeepsEverything) {
  {
    std::unique_ptr<HistoryStore> store = OpenStore();
    ASSERT_TRUE(store->BeginSweep(MakeSweep("s1", 10)).ok());
    ASSERT_TRUE(store->AddStep(MakeStep("s1", 0, 5)).ok());
    ASSERT_TRUE(store->FinishSweep("s1", "succeeded", "", "d", T(12)).ok());
    ASSERT_TRUE(store->BeginSweep(MakeSweep("s2", 20)).ok());
  }
  std::unique_ptr<HistoryStore> store = OpenStore();
  absl::StatusOr<SweepWithSteps> s1 = store->GetSweep("s1");
  ASSERT_TRUE(s1.ok()) << s1.status();
  EXPECT_EQ(s1->sweep.status, "succeeded");
  EXPECT_EQ(s1->sweep.diagnosis, "d");
  ASSERT_EQ(s1->steps.size(), 1u);
  ExpectSameStep(s1->steps[0], MakeStep("s1", 0, 5));
  EXPECT_EQ(store->ListSweeps(10)->size(), 2u);
  auto samples =
      store->BaselineSamples("nightly", "all_reduce", "float", 1 << 20, 8,
                             "topo-a", "0.5.0", false, 10);
  ASSERT_TRUE(samples.ok()) << samples.status();
  ASSERT_EQ(samples->size(), 1u);
  EXPECT_EQ((*samples)[0].busbw, 5);
}

// Writes from a child process that dies without closing the store; the
// parent must find every write that returned.
void CrashAfterWrites(const std::string& path, bool sigkill) {
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    absl::StatusOr<std::unique_ptr<HistoryStore>> opened =
        HistoryStore::Open(path);
    if (!opened.ok()) _exit(10);
    HistoryStore* store = opened->release();  // never closed
    if (!store->BeginSweep(MakeSweep("done", 10)).ok()) _exit(11);
    for (int i = 0; i < 20; ++i) {
      if (!store->AddStep(MakeStep("done", i, 10 + i)).ok()) _exit(12);
    }
    if (!store->FinishSweep("done", "succeeded", "", "", T(11)).ok()) _exit(13);
    if (!store->BeginSweep(MakeSweep("running", 20)).ok()) _exit(14);
    if (!store->AddStep(MakeStep("running", 0, 7)).ok()) _exit(15);
    if (sigkill) kill(getpid(), SIGKILL);
    _exit(0);
  }
  int wstatus = 0;
  ASSERT_EQ(waitpid(pid, &wstatus, 0), pid);
  if (sigkill) {
    ASSERT_TRUE(WIFSIGNALED(wstatus)) << wstatus;
    EXPECT_EQ(WTERMSIG(wstatus), SIGKILL);
  } else {
    ASSERT_TRUE(WIFEXITED(wstatus)) << wstatus;
    ASSERT_EQ(WEXITSTATUS(wstatus), 0);
  }
}

void ExpectCrashWritesKept(HistoryStore& store) {
  absl::StatusOr<SweepWithSteps> done = store.GetSweep("done");
  ASSERT_TRUE(done.ok()) << done.status();
  EXPECT_EQ(done->sweep.status, "succeeded");
  ASSERT_EQ(done->steps.size(), 20u);
  ExpectSameStep(done->steps[19], MakeStep("done", 19, 29));
  absl::StatusOr<SweepWithSteps> running = store.GetSweep("running");
  ASSERT_TRUE(running.ok()) << running.status();
  EXPECT_EQ(running->steps.size(), 1u);
  EXPECT_EQ(*store.MarkInterrupted(T(30)), 1);
  EXPECT_EQ(store.GetSweep("running")->sweep.status, "interrupted");
}

TEST_F(HistoryStoreTest, ExitWithoutCloseLosesNothing) {
  CrashAfterWrites(path_, /*sigkill=*/false);
  // The writes are still in the WAL: nothing checkpointed them.
  ASSERT_TRUE(std::filesystem::exists(path_ + "-wal"));
  EXPECT_GT(std::filesystem::file_size(path_ + "-wal"), 0u);
  std::unique_ptr<HistoryStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  ExpectCrashWritesKept(*store);
}

TEST_F(HistoryStoreTest, KillNineLosesNothing) {
  CrashAfterWrites(path_, /*sigkill=*/true);
  std::unique_ptr<HistoryStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  ExpectCrashWritesKept(*store);
}

TEST_F(HistoryStoreTest, ConcurrentWritersAreSerialized) {
  std::unique_ptr<HistoryStore> store = OpenStore();
  ASSERT_TRUE(store->BeginSweep(MakeSweep("s1", 1)).ok());
  constexpr int kThreads = 4;
  constexpr int kSteps = 25;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&store, t] {
      for (int i = 0; i < kSteps; ++i) {
        EXPECT_TRUE(store->AddStep(MakeStep("s1", t * kSteps + i, i)).ok());
        EXPECT_TRUE(store->ListSweeps(5).ok());
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(store->GetSweep("s1")->steps.size(),
            static_cast<size_t>(kThreads * kSteps));
}

TEST(HistoryStoreMemoryTest, InMemoryStoreWorks) {
  absl::StatusOr<std::unique_ptr<HistoryStore>> store =
      HistoryStore::Open(":memory:");
  ASSERT_TRUE(store.ok()) << store.status();
  ASSERT_TRUE((*store)->BeginSweep(MakeSweep("s1", 1)).ok());
  EXPECT_EQ((*store)->ListSweeps(1)->size(), 1u);
}

// The stored names are the ones the CLI parses (core::ParseSweepOutcome).
TEST(HistoryStoreMemoryTest, StoredStatusesAreTheOutcomesNames) {
  using core::SweepOutcome;
  EXPECT_EQ(core::ParseSweepOutcome(kSweepRunning), SweepOutcome::kRunning);
  EXPECT_EQ(core::ParseSweepOutcome(kSweepSucceeded), SweepOutcome::kSucceeded);
  EXPECT_EQ(core::ParseSweepOutcome(kSweepFailed), SweepOutcome::kFailed);
  EXPECT_EQ(core::ParseSweepOutcome(kSweepAborted), SweepOutcome::kAborted);
  EXPECT_EQ(core::ParseSweepOutcome(kSweepInterrupted),
            SweepOutcome::kInterrupted);
  EXPECT_EQ(core::ParseSweepOutcome(kSweepPreempted), SweepOutcome::kPreempted);
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::coordinator
