// Schema migration 9 (issue 15): the isolations the coordinator ran after a
// sweep, kept with it, bounded, removed with it.
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "daemon/coordinator/store/history_store.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/coordinator/history_db_test.h"

namespace fabricpulse::coordinator {
namespace {
namespace FP_UNITY_ID {

using ::testing::ElementsAre;

class HistoryIsolationTest : public HistoryDbTest {
 protected:
  void AddSweep(HistoryStore& store, const std::string& id, int64_t started) {
    SweepRecord sweep;
    sweep.id = id;
    sweep.plan = "nightly";
    sweep.trigger = "schedule:nightly";
    sweep.nranks = 4;
    sweep.started = absl::FromUnixSeconds(started);
    ASSERT_TRUE(store.BeginSweep(sweep).ok());
  }
  static IsolationRecord Isolation(const std::string& parent, int64_t started) {
    IsolationRecord r;
    r.sweep_id = parent;
    r.plan = "nightly";
    r.cause = "regression";
    r.op = "all_reduce";
    r.bytes = 524288;
    r.started = absl::FromUnixSeconds(started);
    r.finished = absl::FromUnixSeconds(started + 30);
    r.verdict = "node";
    r.culprits = {"node-2"};
    r.summary = "node node-2: pairwise ...";
    r.rounds = {{"all",
                 {"node-0", "node-1", "node-2", "node-3"},
                 true,
                 2e7,
                 "",
                 "s-all"},
                {"half", {"node-2", "node-3"}, false, 0, "timed out", "s-h"}};
    return r;
  }
};

TEST_F(HistoryIsolationTest, VersionEightHistoryGainsTheTablesEmpty) {
  {
    std::unique_ptr<HistoryStore> store = OpenStore();
    ASSERT_NE(store, nullptr);
    AddSweep(*store, "old", 100);
  }
  RawExec(
      "DROP TABLE node_results; DROP TABLE campaigns; "
      "ALTER TABLE sweeps DROP COLUMN method_key; ALTER TABLE steps DROP "
      "COLUMN wrong_checked; ALTER TABLE steps DROP COLUMN baseline_noisy; "
      "DROP TABLE isolation_rounds; DROP TABLE isolations; PRAGMA "
      "user_version = 8");
  std::unique_ptr<HistoryStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(RawUserVersion(), LatestSchemaVersion());
  EXPECT_EQ(LatestSchemaVersion(), 11);
  auto none = store->GetIsolation("old");
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_FALSE(none->has_value());
  ASSERT_TRUE(store->SaveIsolation(Isolation("old", 200)).ok());
}

TEST_F(HistoryIsolationTest, SavedIsolationRoundTripsAcrossARestart) {
  std::unique_ptr<HistoryStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  AddSweep(*store, "parent", 100);
  IsolationRecord running = Isolation("parent", 110);
  running.verdict = kIsolationRunning;
  running.finished = absl::InfinitePast();
  running.culprits.clear();
  running.rounds.clear();
  ASSERT_TRUE(store->SaveIsolation(running).ok());
  // The finished one replaces it.
  ASSERT_TRUE(store->SaveIsolation(Isolation("parent", 110)).ok());
  store.reset();
  store = OpenStore();
  ASSERT_NE(store, nullptr);
  auto got = store->GetIsolation("parent");
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_TRUE(got->has_value());
  const IsolationRecord& r = **got;
  EXPECT_EQ(r.plan, "nightly");
  EXPECT_EQ(r.cause, "regression");
  EXPECT_EQ(r.op, "all_reduce");
  EXPECT_EQ(r.bytes, 524288u);
  EXPECT_EQ(r.verdict, "node");
  EXPECT_THAT(r.culprits, ElementsAre("node-2"));
  EXPECT_EQ(r.started, absl::FromUnixSeconds(110));
  EXPECT_EQ(r.finished, absl::FromUnixSeconds(140));
  ASSERT_EQ(r.rounds.size(), 2u);
  EXPECT_EQ(r.rounds[0].role, "all");
  EXPECT_THAT(r.rounds[0].nodes,
              ElementsAre("node-0", "node-1", "node-2", "node-3"));
  EXPECT_TRUE(r.rounds[0].ok);
  EXPECT_EQ(r.rounds[0].busbw, 2e7);
  EXPECT_EQ(r.rounds[0].sweep_id, "s-all");
  EXPECT_FALSE(r.rounds[1].ok);
  EXPECT_EQ(r.rounds[1].error, "timed out");
  EXPECT_EQ(RawCount("SELECT COUNT(*) FROM isolation_rounds"), 2);
}

TEST_F(HistoryIsolationTest, UnknownSweepIsRefused) {
  std::unique_ptr<HistoryStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->SaveIsolation(Isolation("nope", 1)).code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(store->SaveIsolation(Isolation("", 1)).code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(HistoryIsolationTest, RunningOnesAreMarkedInterruptedAtStart) {
  std::unique_ptr<HistoryStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  AddSweep(*store, "a", 100);
  AddSweep(*store, "b", 101);
  IsolationRecord running = Isolation("a", 110);
  running.verdict = kIsolationRunning;
  ASSERT_TRUE(store->SaveIsolation(running).ok());
  ASSERT_TRUE(store->SaveIsolation(Isolation("b", 111)).ok());
  auto changed = store->MarkIsolationsInterrupted(absl::FromUnixSeconds(500));
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_EQ(*changed, 1);
  EXPECT_EQ(store->GetIsolation("a").value()->verdict, kIsolationInterrupted);
  EXPECT_EQ(store->GetIsolation("a").value()->finished,
            absl::FromUnixSeconds(500));
  EXPECT_EQ(store->GetIsolation("b").value()->verdict, "node");
}

TEST_F(HistoryIsolationTest, RoundsAndStoredIsolationsAreBounded) {
  std::unique_ptr<HistoryStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  AddSweep(*store, "many", 1);
  IsolationRecord big = Isolation("many", 1);
  big.rounds.resize(kMaxStoredIsolationRounds + 5, big.rounds[0]);
  ASSERT_TRUE(store->SaveIsolation(big).ok());
  EXPECT_EQ(store->GetIsolation("many").value()->rounds.size(),
            static_cast<size_t>(kMaxStoredIsolationRounds));
  // One more than the cap: the oldest (by start) goes.
  for (int i = 0; i < kMaxStoredIsolations; ++i) {
    const std::string id = absl::StrCat("s", i);
    AddSweep(*store, id, 10 + i);
    ASSERT_TRUE(store->SaveIsolation(Isolation(id, 10 + i)).ok());
  }
  EXPECT_EQ(RawCount("SELECT COUNT(*) FROM isolations"), kMaxStoredIsolations);
  EXPECT_FALSE(store->GetIsolation("many").value().has_value());
  EXPECT_TRUE(store->GetIsolation("s0").value().has_value());
  EXPECT_EQ(RawCount("SELECT COUNT(*) FROM isolation_rounds WHERE sweep_id = "
                     "'many'"),
            0);
}

TEST_F(HistoryIsolationTest, RemovedWithItsSweep) {
  std::unique_ptr<HistoryStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  AddSweep(*store, "old", 100);
  ASSERT_TRUE(store
                  ->FinishSweep("old", kSweepSucceeded, "", "",
                                absl::FromUnixSeconds(101))
                  .ok());
  ASSERT_TRUE(store->SaveIsolation(Isolation("old", 102)).ok());
  auto pruned = store->Prune(absl::FromUnixSeconds(200), uint64_t{1} << 40);
  ASSERT_TRUE(pruned.ok()) << pruned.status();
  EXPECT_EQ(pruned->removed_by_age, 1);
  EXPECT_EQ(RawCount("SELECT COUNT(*) FROM isolations"), 0);
  EXPECT_EQ(RawCount("SELECT COUNT(*) FROM isolation_rounds"), 0);
}

TEST_F(HistoryIsolationTest, IsolationSweepsNeverMakeABaseline) {
  std::unique_ptr<HistoryStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  for (const std::string trigger : {"cli", "isolation:parent"}) {
    SweepRecord sweep;
    sweep.id = trigger;
    sweep.plan = "adhoc";
    sweep.trigger = trigger;
    sweep.nranks = 2;
    sweep.topology = "gloo:a";
    sweep.started = absl::FromUnixSeconds(trigger == "cli" ? 1 : 2);
    ASSERT_TRUE(store->BeginSweep(sweep).ok());
    StepRecord step;
    step.sweep_id = trigger;
    step.op = "all_reduce";
    step.bytes = 1024;
    step.dtype = "float";
    step.time_seconds = trigger == "cli" ? 1.0 : 9.0;
    step.busbw = 5;
    ASSERT_TRUE(store->AddStep(step).ok());
    ASSERT_TRUE(store
                    ->FinishSweep(trigger, kSweepSucceeded, "", "",
                                  absl::FromUnixSeconds(3))
                    .ok());
  }
  auto samples = store->BaselineSamples("adhoc", "all_reduce", "float", 1024, 2,
                                        "gloo:a", "", false, 10);
  ASSERT_TRUE(samples.ok()) << samples.status();
  ASSERT_EQ(samples->size(), 1u);  // the cli sweep's only
  EXPECT_EQ((*samples)[0].time_seconds, 1.0);
  auto key = store->NewestBaselineKey("adhoc", 2, "gloo:a");
  ASSERT_TRUE(key.ok()) << key.status();
  EXPECT_TRUE(key->has_value());
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::coordinator
