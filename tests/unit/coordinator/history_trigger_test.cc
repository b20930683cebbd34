// HistoryStore::NewestByTrigger: the last run of each schedule.
#include <string>

#include "absl/time/time.h"
#include "daemon/coordinator/store/history_store.h"
#include "gtest/gtest.h"
#include "tests/unit/coordinator/history_db_test.h"

namespace fabricpulse::coordinator {
namespace {
namespace FP_UNITY_ID {

SweepRecord Sweep(const std::string& id, const std::string& trigger,
                  int64_t started) {
  SweepRecord sweep;
  sweep.id = id;
  sweep.plan = "quick";
  sweep.trigger = trigger;
  sweep.spec_json = "{}";
  sweep.nodes = {"node-a"};
  sweep.nranks = 2;
  sweep.started = absl::FromUnixSeconds(started);
  return sweep;
}

using HistoryTriggerTest = HistoryDbTest;

TEST_F(HistoryTriggerTest, NewestSweepOfEachTriggerWithThePrefix) {
  std::unique_ptr<HistoryStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  for (const SweepRecord& s :
       {Sweep("n1", "schedule:nightly", 100),
        Sweep("n3", "schedule:nightly", 300),
        Sweep("n2", "schedule:nightly", 200),
        Sweep("h1", "schedule:hourly_x", 150), Sweep("c1", "cli", 400),
        Sweep("o1", "schedule_other", 500)}) {
    ASSERT_TRUE(store->BeginSweep(s).ok()) << s.id;
  }
  ASSERT_TRUE(store
                  ->FinishSweep("n3", kSweepSucceeded, "", "",
                                absl::FromUnixSeconds(330))
                  .ok());
  auto newest = store->NewestByTrigger("schedule:");
  ASSERT_TRUE(newest.ok()) << newest.status();
  // "cli" and "schedule_other" do not start with the prefix ('_' is no
  // wildcard).
  ASSERT_EQ(newest->size(), 2u);
  const SweepRecord& nightly = newest->at("schedule:nightly");
  EXPECT_EQ(nightly.id, "n3");
  EXPECT_EQ(nightly.status, kSweepSucceeded);
  EXPECT_EQ(nightly.started, absl::FromUnixSeconds(300));
  EXPECT_EQ(nightly.finished, absl::FromUnixSeconds(330));
  EXPECT_EQ(newest->at("schedule:hourly_x").id, "h1");
  EXPECT_EQ(newest->at("schedule:hourly_x").status, kSweepRunning);

  auto none = store->NewestByTrigger("schedule:absent");
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::coordinator
