// The history's retention on a real SQLite file: old sweeps go, the size
// bound removes the oldest first and the file really shrinks, a running
// sweep is never removed, baselines still come from what is left, and the
// retention pass runs after each finished sweep and on its timer.
#include "daemon/coordinator/store/history_retention.h"

#include <sqlite3.h>
#include <stdlib.h>

#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "daemon/coordinator/store/history_store.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/fakes/fake_clock.h"

namespace fabricpulse::coordinator {
namespace {

using ::testing::ElementsAre;

absl::Time T(int64_t seconds) { return absl::FromUnixSeconds(seconds); }

class RetentionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string templ = ::testing::TempDir() + "retention_test.XXXXXX";
    ASSERT_NE(mkdtemp(templ.data()), nullptr);
    dir_ = templ;
    path_ = dir_ + "/history.db";
    auto store = HistoryStore::Open(path_);
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = std::move(*store);
  }
  void TearDown() override {
    store_.reset();
    std::filesystem::remove_all(dir_);
  }

  // A sweep of plan `plan` started at `started` with `steps` steps, all
  // all_reduce at 1 MiB steps apart, finished as succeeded unless
  // `running`.
  void AddSweep(const std::string& id, int64_t started, int steps,
                bool running = false, const std::string& plan = "nightly") {
    SweepRecord sweep;
    sweep.id = id;
    sweep.plan = plan;
    sweep.trigger = "cli";
    sweep.spec_json = "{}";
    sweep.nodes = {"node-a", "node-b"};
    sweep.nranks = 4;
    sweep.topology = "gloo:node-ax2,node-bx2";
    sweep.backend = "gloo";
    sweep.started = T(started);
    ASSERT_TRUE(store_->BeginSweep(sweep).ok());
    for (int i = 0; i < steps; ++i) {
      StepRecord step;
      step.sweep_id = id;
      step.index = i;
      step.op = "all_reduce";
      step.bytes = (1ull << 20) * (i + 1);
      step.count = step.bytes / 4;
      step.dtype = "float";
      step.redop = "sum";
      step.time_seconds = 1e-3;
      step.busbw = 1e9 + started;
      ASSERT_TRUE(store_->AddStep(step).ok());
    }
    if (!running) {
      ASSERT_TRUE(
          store_->FinishSweep(id, kSweepSucceeded, "", "", T(started + 1))
              .ok());
    }
  }

  std::vector<std::string> Ids() {
    std::vector<std::string> ids;
    auto sweeps = store_->ListSweeps(100000);
    EXPECT_TRUE(sweeps.ok());
    for (const SweepRecord& r : *sweeps) ids.push_back(r.id);
    return ids;
  }
  uint64_t FileSize() { return std::filesystem::file_size(path_); }

  std::string dir_;
  std::string path_;
  std::unique_ptr<HistoryStore> store_;
};

TEST_F(RetentionTest, NewFilesUseIncrementalVacuum) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2(path_.c_str(), &db, SQLITE_OPEN_READONLY, nullptr),
            SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "PRAGMA auto_vacuum", -1, &stmt, nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_step(stmt), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int(stmt, 0), 2);  // INCREMENTAL
  sqlite3_finalize(stmt);
  sqlite3_close(db);
}

TEST_F(RetentionTest, OldSweepsGoRecentAndRunningOnesStay) {
  AddSweep("old-1", 1000, 3);
  AddSweep("old-running", 1001, 3, /*running=*/true);
  AddSweep("old-2", 1002, 3);
  AddSweep("new-1", 5000, 3);
  auto result = store_->Prune(T(2000), /*max_bytes=*/1ull << 40);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->removed_by_age, 2);
  EXPECT_EQ(result->removed_by_size, 0);
  EXPECT_THAT(Ids(), ElementsAre("new-1", "old-running"));
  // Their steps went with them.
  EXPECT_FALSE(store_->GetSweep("old-1").ok());
  EXPECT_EQ(store_->GetSweep("new-1")->steps.size(), 3u);
}

TEST_F(RetentionTest, NothingToRemoveRemovesNothing) {
  AddSweep("a", 1000, 3);
  auto result = store_->Prune(T(500), 1ull << 40);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->removed_by_age + result->removed_by_size, 0);
  EXPECT_THAT(Ids(), ElementsAre("a"));
}

TEST_F(RetentionTest, TheSizeBoundRemovesTheOldestFirstAndTheFileShrinks) {
  for (int i = 0; i < 100; ++i) {
    AddSweep(absl::StrCat("s", 1000 + i), 1000 + i, 200);
  }
  AddSweep("running", 999, 5, /*running=*/true);  // the oldest of all
  auto used = store_->UsedBytes();
  ASSERT_TRUE(used.ok());
  // Make the WAL's pages part of the file first, so that its size says
  // what the database holds.
  ASSERT_TRUE(store_->Prune(T(0), 1ull << 40).ok());
  const uint64_t before = FileSize();
  const uint64_t max_bytes = *used / 3;
  auto result = store_->Prune(T(0), max_bytes);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_GT(result->removed_by_size, 50);
  EXPECT_LE(*store_->UsedBytes(), max_bytes);
  std::vector<std::string> ids = Ids();
  // The running sweep and the newest ones are left, in order.
  ASSERT_GE(ids.size(), 2u);
  EXPECT_EQ(ids.front(), "s1099");
  EXPECT_EQ(ids.back(), "running");
  const int kept = static_cast<int>(ids.size()) - 1;
  EXPECT_EQ(ids[kept - 1], absl::StrCat("s", 1100 - kept));
  EXPECT_LT(FileSize(), before / 2) << before;
  EXPECT_EQ(result->bytes_after, FileSize());
}

TEST_F(RetentionTest, BaselinesComeFromTheSweepsLeft) {
  for (int i = 0; i < 10; ++i) AddSweep(absl::StrCat("b", i), 1000 + i, 2);
  ASSERT_TRUE(store_->Prune(T(1005), 1ull << 40).ok());
  auto samples =
      store_->BaselineSamples("nightly", "all_reduce", "float", 1ull << 20, 4,
                              "gloo:node-ax2,node-bx2", "", false, 10);
  ASSERT_TRUE(samples.ok()) << samples.status();
  ASSERT_EQ(samples->size(), 5u);  // b5..b9, newest first
  EXPECT_EQ((*samples)[0].busbw, 1e9 + 1009);
  EXPECT_EQ(samples->back().busbw, 1e9 + 1005);
}

TEST_F(RetentionTest, RunsAfterEachFinishedSweepAndOnItsTimer) {
  fakes::FakeClock clock(T(100000));
  RetentionPolicy policy;
  policy.max_age = absl::Hours(1);
  policy.max_bytes = 1ull << 40;
  policy.interval = absl::Minutes(10);
  HistoryRetention retention(store_.get(), policy, &clock);
  EXPECT_TRUE(retention.Tick());  // the first call runs
  EXPECT_FALSE(retention.Tick());
  AddSweep("old", 100000 - 7200, 1);  // finished: the next tick runs
  EXPECT_TRUE(retention.Tick());
  EXPECT_TRUE(Ids().empty());
  AddSweep("recent", 100000 - 60, 1, /*running=*/true);
  EXPECT_FALSE(retention.Tick());  // nothing finished, interval not over
  ASSERT_TRUE(
      store_->FinishSweep("recent", kSweepSucceeded, "", "", T(100000)).ok());
  EXPECT_TRUE(retention.Tick());
  EXPECT_THAT(Ids(), ElementsAre("recent"));
  clock.Advance(absl::Minutes(10));  // the timer: "recent" is now too old
  clock.Advance(absl::Hours(1));
  EXPECT_TRUE(retention.Tick());
  EXPECT_TRUE(Ids().empty());
}

}  // namespace
}  // namespace fabricpulse::coordinator
