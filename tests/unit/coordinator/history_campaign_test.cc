// The history's campaign tables (schema version 11): group results kept in
// order and bounded, campaigns saved, listed and marked interrupted.
#include <cmath>
#include <limits>

#include "daemon/coordinator/store/history_store.h"
#include "gtest/gtest.h"
#include "tests/unit/coordinator/history_db_test.h"

namespace fabricpulse::coordinator {
namespace {
namespace FP_UNITY_ID {

std::unique_ptr<HistoryStore> Open() {
  auto store = HistoryStore::Open(":memory:");
  EXPECT_TRUE(store.ok()) << store.status();
  return *std::move(store);
}

core::GroupResult Result(std::vector<std::string> nodes, double busbw,
                         int64_t at) {
  core::GroupResult r;
  r.nodes = std::move(nodes);
  r.ok = true;
  r.busbw = busbw;
  r.reference_busbw = 10e9;
  r.reference_spread = 1e8;
  r.sweep_id = "s";
  r.at = absl::FromUnixSeconds(at);
  return r;
}

TEST(HistoryCampaignTest, NodeResultsComeBackInOrderPerPlan) {
  auto store = Open();
  ASSERT_TRUE(store->SaveNodeResult("p", Result({"a", "b"}, 9e9, 10)).ok());
  core::GroupResult failed = Result({"c"}, 0, 11);
  failed.ok = false;
  failed.busbw = std::numeric_limits<double>::quiet_NaN();
  failed.error = "hung";
  ASSERT_TRUE(store->SaveNodeResult("p", failed).ok());
  ASSERT_TRUE(store->SaveNodeResult("q", Result({"a"}, 1e9, 12)).ok());
  auto p = store->NodeResults("p");
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_EQ(p->size(), 2u);
  EXPECT_EQ((*p)[0].nodes, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ((*p)[0].busbw, 9e9);
  EXPECT_EQ((*p)[0].reference_busbw, 10e9);
  EXPECT_EQ((*p)[0].reference_spread, 1e8);
  EXPECT_EQ((*p)[0].at, absl::FromUnixSeconds(10));
  EXPECT_FALSE((*p)[1].ok);
  EXPECT_TRUE(std::isnan((*p)[1].busbw));  // not measured stays absent
  EXPECT_EQ((*p)[1].error, "hung");
  EXPECT_EQ(store->NodeResults("q")->size(), 1u);
  EXPECT_EQ(store->SaveNodeResult("", Result({"a"}, 1, 1)).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(store->SaveNodeResult("p", Result({}, 1, 1)).code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(HistoryCampaignTest, CampaignsAreSavedReplacedListedAndInterrupted) {
  auto store = Open();
  CampaignRecord c;
  c.id = "c1";
  c.plan = "p";
  c.trigger = "cli";
  c.grouping = "pairs";
  c.started = absl::FromUnixSeconds(100);
  c.status = kCampaignRunning;
  c.fleet = 8;
  ASSERT_TRUE(store->SaveCampaign(c).ok());
  c.measured = 8;
  c.pass = 7;
  c.fail = 1;
  c.second_passes = 2;
  c.status = kCampaignFinished;
  c.finished = absl::FromUnixSeconds(160);
  ASSERT_TRUE(store->SaveCampaign(c).ok());
  CampaignRecord d = c;
  d.id = "c2";
  d.started = absl::FromUnixSeconds(200);
  d.finished = absl::InfinitePast();
  d.status = kCampaignRunning;
  ASSERT_TRUE(store->SaveCampaign(d).ok());
  auto listed = store->ListCampaigns("p", 10);
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 2u);
  EXPECT_EQ((*listed)[0].id, "c2");
  EXPECT_EQ((*listed)[1].fail, 1);
  EXPECT_EQ((*listed)[1].second_passes, 2);
  EXPECT_EQ((*listed)[1].finished, absl::FromUnixSeconds(160));
  EXPECT_EQ(*store->MarkCampaignsInterrupted(absl::FromUnixSeconds(300)), 1);
  listed = store->ListCampaigns("", 1);
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0].status, kCampaignInterrupted);
  EXPECT_EQ((*listed)[0].finished, absl::FromUnixSeconds(300));
  EXPECT_TRUE(store->ListCampaigns("other", 10)->empty());
}

// The bound's rule on a bound of 50 (the real one, 100,000 rows, would
// take the test 30 s).
TEST(HistoryCampaignTest, NodeResultsAreBounded) {
  auto store = Open();
  for (int i = 0; i < 55; ++i) {
    ASSERT_TRUE(store
                    ->SaveNodeResult(i % 2 ? "p" : "q",
                                     Result({"a"}, i, 1000 + i),
                                     /*max_rows=*/50)
                    .ok());
  }
  auto p = store->NodeResults("p");
  auto q = store->NodeResults("q");
  ASSERT_TRUE(p.ok() && q.ok());
  // Across plans, the oldest five went: rows 0 to 4.
  EXPECT_EQ(p->size() + q->size(), 50u);
  EXPECT_EQ(p->front().busbw, 5);
  EXPECT_EQ(q->front().busbw, 6);
}

class HistoryCampaignMigrationTest : public HistoryDbTest {};

// Schema migration 11: a version-10 history gains both tables, empty.
TEST_F(HistoryCampaignMigrationTest, VersionTenHistoryGainsTheTablesEmpty) {
  ASSERT_NE(OpenStore(), nullptr);
  RawExec(
      "DROP TABLE node_results; DROP TABLE campaigns; PRAGMA user_version = "
      "10");
  std::unique_ptr<HistoryStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(LatestSchemaVersion(), 11);
  EXPECT_EQ(RawUserVersion(), 11);
  EXPECT_TRUE(store->NodeResults("p")->empty());
  EXPECT_TRUE(store->ListCampaigns("", 10)->empty());
  ASSERT_TRUE(store->SaveNodeResult("p", Result({"a"}, 1e9, 5)).ok());
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::coordinator
