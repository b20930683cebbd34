// (Migration 9, the isolations: history_isolation_test.cc.) Schema
// migrations 5 (the steps' iteration counts, filled for steps stored
// before it from their sweep's spec), 6 (pairwise rounds and pairs), 7
// (the sweeps' baseline change notes) and 8 (the ranks' mean time per
// step and each sweep's rank map), unknown for what was stored before.
#include <memory>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "daemon/coordinator/store/history_store.h"
#include "gtest/gtest.h"
#include "tests/unit/coordinator/history_db_test.h"

namespace fabricpulse::coordinator {
namespace {
namespace FP_UNITY_ID {

class HistoryMigrationTest : public HistoryDbTest {
 protected:
  // A sweep with one step, as any version stores it.
  void AddSweep(HistoryStore& store, const std::string& id,
                const std::string& spec_json) {
    SweepRecord sweep;
    sweep.id = id;
    sweep.plan = "nightly-full";
    sweep.trigger = "cli";
    sweep.spec_json = spec_json;
    sweep.nranks = 2;
    sweep.topology = "gloo:a";
    sweep.backend = "gloo";
    sweep.started = absl::FromUnixSeconds(100);
    ASSERT_TRUE(store.BeginSweep(sweep).ok());
    StepRecord step;
    step.sweep_id = id;
    step.op = "all_reduce";
    step.bytes = 1024;
    step.count = 256;
    step.dtype = "float";
    step.redop = "sum";
    step.iterations = 77;  // dropped below with the column
    ASSERT_TRUE(store.AddStep(step).ok());
  }
};

TEST_F(HistoryMigrationTest, VersionFourStepsGetTheirSpecsIters) {
  {
    std::unique_ptr<HistoryStore> store = OpenStore();
    ASSERT_NE(store, nullptr);
    AddSweep(*store, "fixed", R"({"ops":["all_reduce"],"iters":50})");
    AddSweep(*store, "unsaid", R"({"ops":["all_reduce"]})");
    AddSweep(*store, "broken", "not json");
  }
  RawExec(
      "DROP TABLE node_results; DROP TABLE campaigns; "
      "ALTER TABLE sweeps DROP COLUMN method_key; ALTER TABLE steps DROP "
      "COLUMN wrong_checked; ALTER TABLE steps DROP COLUMN baseline_noisy; "
      "DROP TABLE isolation_rounds; DROP TABLE isolations; "
      "DROP TABLE sweep_ranks; ALTER TABLE steps DROP COLUMN "
      "mean_rank_time_seconds; "
      "ALTER TABLE steps DROP COLUMN pair_round; DROP TABLE step_pairs; "
      "DROP INDEX sweeps_by_versioned_baseline_key; "
      "ALTER TABLE sweeps DROP COLUMN baseline_change; "
      "ALTER TABLE steps DROP COLUMN iterations; PRAGMA user_version = 4");
  std::unique_ptr<HistoryStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  absl::StatusOr<SweepWithSteps> fixed = store->GetSweep("fixed");
  ASSERT_TRUE(fixed.ok()) << fixed.status();
  ASSERT_EQ(fixed->steps.size(), 1u);
  EXPECT_EQ(fixed->steps[0].iterations, 50);
  EXPECT_EQ(store->GetSweep("unsaid")->steps[0].iterations, 0);
  EXPECT_EQ(store->GetSweep("broken")->steps[0].iterations, 0);
}

TEST_F(HistoryMigrationTest, NewStepsKeepTheirCount) {
  std::unique_ptr<HistoryStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  AddSweep(*store, "adaptive", R"({"iters":20,"adaptive":{"minIters":5}})");
  EXPECT_EQ(store->GetSweep("adaptive")->steps[0].iterations, 77);
}

// Schema migration 6: steps stored before it are no pairwise rounds and
// have no pairs.
TEST_F(HistoryMigrationTest, VersionFiveStepsHaveNoRound) {
  {
    std::unique_ptr<HistoryStore> store = OpenStore();
    ASSERT_NE(store, nullptr);
    AddSweep(*store, "old", R"({"ops":["all_reduce"],"iters":50})");
  }
  RawExec(
      "DROP TABLE node_results; DROP TABLE campaigns; "
      "ALTER TABLE sweeps DROP COLUMN method_key; ALTER TABLE steps DROP "
      "COLUMN wrong_checked; ALTER TABLE steps DROP COLUMN baseline_noisy; "
      "DROP TABLE isolation_rounds; DROP TABLE isolations; "
      "DROP TABLE sweep_ranks; ALTER TABLE steps DROP COLUMN "
      "mean_rank_time_seconds; "
      "ALTER TABLE steps DROP COLUMN pair_round; DROP TABLE step_pairs; "
      "DROP INDEX sweeps_by_versioned_baseline_key; "
      "ALTER TABLE sweeps DROP COLUMN baseline_change; "
      "PRAGMA user_version = 5");
  std::unique_ptr<HistoryStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  absl::StatusOr<SweepWithSteps> old = store->GetSweep("old");
  ASSERT_TRUE(old.ok()) << old.status();
  ASSERT_EQ(old->steps.size(), 1u);
  EXPECT_FALSE(old->steps[0].round.has_value());
  EXPECT_TRUE(old->steps[0].pairs.empty());
}

// Schema migration 7: sweeps stored before it have no baseline change, and
// their baselines keep applying to sweeps of the same backend version.
TEST_F(HistoryMigrationTest, VersionSixSweepsHaveNoBaselineChange) {
  {
    std::unique_ptr<HistoryStore> store = OpenStore();
    ASSERT_NE(store, nullptr);
    AddSweep(*store, "old", R"({"ops":["all_reduce"]})");
    ASSERT_TRUE(store
                    ->FinishSweep("old", kSweepSucceeded, "", "",
                                  absl::FromUnixSeconds(101))
                    .ok());
  }
  RawExec(
      "DROP TABLE node_results; DROP TABLE campaigns; "
      "ALTER TABLE sweeps DROP COLUMN method_key; ALTER TABLE steps DROP "
      "COLUMN wrong_checked; ALTER TABLE steps DROP COLUMN baseline_noisy; "
      "DROP TABLE isolation_rounds; DROP TABLE isolations; "
      "DROP TABLE sweep_ranks; ALTER TABLE steps DROP COLUMN "
      "mean_rank_time_seconds; "
      "DROP INDEX sweeps_by_versioned_baseline_key; "
      "ALTER TABLE sweeps DROP COLUMN baseline_change; "
      "PRAGMA user_version = 6");
  std::unique_ptr<HistoryStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(RawUserVersion(), LatestSchemaVersion());
  EXPECT_EQ(store->GetSweep("old")->sweep.baseline_change, "");
  auto key = store->NewestBaselineKey("nightly-full", 2, "gloo:a");
  ASSERT_TRUE(key.ok()) << key.status();
  ASSERT_TRUE(key->has_value());
  EXPECT_EQ((*key)->topology, "gloo:a");
  EXPECT_EQ((*key)->backend_version, "");
}

// Schema migration 8: no rank map and no mean for what was stored before.
TEST_F(HistoryMigrationTest, VersionSevenHistoryHasNoRankMapAndNoMean) {
  {
    std::unique_ptr<HistoryStore> store = OpenStore();
    ASSERT_NE(store, nullptr);
    AddSweep(*store, "old", R"({"iters":20})");
  }
  RawExec(
      "DROP TABLE node_results; DROP TABLE campaigns; "
      "ALTER TABLE sweeps DROP COLUMN method_key; ALTER TABLE steps DROP "
      "COLUMN wrong_checked; ALTER TABLE steps DROP COLUMN baseline_noisy; "
      "DROP TABLE isolation_rounds; DROP TABLE isolations; "
      "DROP TABLE sweep_ranks; ALTER TABLE steps DROP COLUMN "
      "mean_rank_time_seconds; PRAGMA user_version = 7");
  std::unique_ptr<HistoryStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(RawUserVersion(), LatestSchemaVersion());
  absl::StatusOr<SweepWithSteps> old = store->GetSweep("old");
  ASSERT_TRUE(old.ok()) << old.status();
  EXPECT_TRUE(old->sweep.ranks.empty());
  ASSERT_EQ(old->steps.size(), 1u);
  EXPECT_FALSE(old->steps[0].mean_rank_time_seconds.has_value());

  // New sweeps keep both, across a restart, in GetSweep and ListSweeps.
  SweepRecord sweep;
  sweep.id = "new";
  sweep.started = absl::FromUnixSeconds(200);
  sweep.ranks = {{0, "a", 0, 3, "NVIDIA H200", "00000000:18:00.0"},
                 {1, "b", 0, -1, "", ""}};
  ASSERT_TRUE(store->BeginSweep(sweep).ok());
  StepRecord step;
  step.sweep_id = "new";
  step.op = "all_reduce";
  step.mean_rank_time_seconds = 1.5e-3;
  ASSERT_TRUE(store->AddStep(step).ok());
  store.reset();
  store = OpenStore();
  ASSERT_NE(store, nullptr);
  absl::StatusOr<SweepWithSteps> got = store->GetSweep("new");
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_EQ(got->sweep.ranks.size(), 2u);
  EXPECT_EQ(got->sweep.ranks[0].node, "a");
  EXPECT_EQ(got->sweep.ranks[0].gpu, 3);
  EXPECT_EQ(got->sweep.ranks[0].gpu_model, "NVIDIA H200");
  EXPECT_EQ(got->sweep.ranks[0].pci_bus_id, "00000000:18:00.0");
  EXPECT_EQ(got->sweep.ranks[1].rank, 1);
  EXPECT_EQ(got->sweep.ranks[1].gpu, -1);
  EXPECT_EQ(got->steps[0].mean_rank_time_seconds, 1.5e-3);
  absl::StatusOr<std::vector<SweepRecord>> listed = store->ListSweeps(2);
  ASSERT_TRUE(listed.ok()) << listed.status();
  ASSERT_EQ(listed->size(), 2u);
  EXPECT_EQ((*listed)[0].id, "new");
  EXPECT_EQ((*listed)[0].ranks.size(), 2u);
  EXPECT_TRUE((*listed)[1].ranks.empty());
}

// Schema migration 10 (issue 29): steps stored before count as checked and
// not noisy, as they were shown; their sweeps have no measurement key and
// count for any baseline; new rows keep all three.
TEST_F(HistoryMigrationTest, VersionNineHistoryIsCheckedAndFitsAnyMethod) {
  {
    std::unique_ptr<HistoryStore> store = OpenStore();
    ASSERT_NE(store, nullptr);
    AddSweep(*store, "old", R"({"iters":20})");
    ASSERT_TRUE(store
                    ->FinishSweep("old", kSweepSucceeded, "", "",
                                  absl::FromUnixSeconds(101))
                    .ok());
  }
  RawExec(
      "DROP TABLE node_results; DROP TABLE campaigns; "
      "ALTER TABLE steps DROP COLUMN wrong_checked; ALTER TABLE steps DROP "
      "COLUMN baseline_noisy; ALTER TABLE sweeps DROP COLUMN method_key; "
      "PRAGMA user_version = 9");
  std::unique_ptr<HistoryStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(RawUserVersion(), LatestSchemaVersion());
  absl::StatusOr<SweepWithSteps> old = store->GetSweep("old");
  ASSERT_TRUE(old.ok()) << old.status();
  EXPECT_EQ(old->sweep.method_key, "");
  ASSERT_EQ(old->steps.size(), 1u);
  EXPECT_TRUE(old->steps[0].wrong_checked);
  EXPECT_FALSE(old->steps[0].baseline_noisy);
  auto samples =
      store->BaselineSamples("nightly-full", "all_reduce", "float", 1024, 2,
                             "gloo:a", "", false, 10, "warmup=5;iters=20");
  ASSERT_TRUE(samples.ok()) << samples.status();
  EXPECT_EQ(samples->size(), 1u);

  SweepRecord sweep;
  sweep.id = "new";
  sweep.plan = "nightly-full";
  sweep.nranks = 2;
  sweep.topology = "gloo:a";
  sweep.started = absl::FromUnixSeconds(200);
  sweep.method_key = "warmup=1;iters=5";
  ASSERT_TRUE(store->BeginSweep(sweep).ok());
  StepRecord step;
  step.sweep_id = "new";
  step.op = "all_reduce";
  step.bytes = 1024;
  step.dtype = "float";
  step.wrong_checked = false;
  step.baseline_noisy = true;
  ASSERT_TRUE(store->AddStep(step).ok());
  ASSERT_TRUE(store
                  ->FinishSweep("new", kSweepSucceeded, "", "",
                                absl::FromUnixSeconds(201))
                  .ok());
  store.reset();
  store = OpenStore();
  ASSERT_NE(store, nullptr);
  absl::StatusOr<SweepWithSteps> got = store->GetSweep("new");
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->sweep.method_key, "warmup=1;iters=5");
  EXPECT_FALSE(got->steps[0].wrong_checked);
  EXPECT_TRUE(got->steps[0].baseline_noisy);
  // A baseline measured another way leaves the new sweep out; its own way
  // takes it (and the old sweep, which fits any).
  samples =
      store->BaselineSamples("nightly-full", "all_reduce", "float", 1024, 2,
                             "gloo:a", "", false, 10, "warmup=5;iters=20");
  ASSERT_TRUE(samples.ok());
  EXPECT_EQ(samples->size(), 1u);
  samples =
      store->BaselineSamples("nightly-full", "all_reduce", "float", 1024, 2,
                             "gloo:a", "", false, 10, "warmup=1;iters=5");
  ASSERT_TRUE(samples.ok());
  EXPECT_EQ(samples->size(), 2u);
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::coordinator
