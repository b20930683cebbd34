// CampaignRun on fake time: which group sweeps start when, within the
// bounds, around busy nodes, and until the window ends.
#include "daemon/core/campaign_run.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fabricpulse::core {
namespace {
namespace FP_UNITY_ID {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

const absl::Time kT0 = absl::FromUnixSeconds(1700000000);

CampaignSettings Settings(int concurrent, double fraction = 1.0) {
  CampaignSettings s;
  s.max_concurrent_groups = concurrent;
  s.max_fleet_fraction = fraction;
  s.window = absl::Hours(1);
  s.busy_retry = absl::Minutes(10);
  return s;
}

CampaignRun NewRun(const std::vector<std::vector<std::string>>& groups,
                   const CampaignSettings& settings) {
  absl::StatusOr<CampaignRun> run = CampaignRun::Create(groups, settings, kT0);
  EXPECT_TRUE(run.ok()) << run.status();
  return *std::move(run);
}

std::vector<std::vector<std::string>> Nodes(
    const std::vector<CampaignGroup>& groups) {
  std::vector<std::vector<std::string>> out;
  for (const CampaignGroup& g : groups) out.push_back(g.nodes);
  return out;
}

TEST(CampaignRunTest, DisjointGroupsRunTogetherUpToTheBound) {
  CampaignRun run = NewRun({{"a"}, {"b"}, {"c"}, {"d"}, {"e"}}, Settings(2));
  std::vector<CampaignGroup> due = run.Due(kT0);
  EXPECT_THAT(Nodes(due), ElementsAre(ElementsAre("a"), ElementsAre("b")));
  EXPECT_THAT(run.Due(kT0), IsEmpty());                // the bound is full
  EXPECT_EQ(run.NextWake(kT0), kT0 + absl::Hours(1));  // waits on a finish
  run.Measured(due[0].id);
  EXPECT_THAT(Nodes(run.Due(kT0)), ElementsAre(ElementsAre("c")));
  EXPECT_FALSE(run.FirstPassDone(kT0));
  EXPECT_EQ(run.Progress(kT0).measured, 1u);
  EXPECT_EQ(run.Progress(kT0).running_groups, 2u);
}

TEST(CampaignRunTest,
     FleetFractionBoundsTheNodesInFlightButOneGroupAlwaysRuns) {
  // 8 nodes, 25 %: 2 nodes at once, so one pair at a time.
  CampaignRun run = NewRun({{"a", "b"}, {"c", "d"}, {"e", "f"}, {"g", "h"}},
                           Settings(16, 0.25));
  EXPECT_EQ(run.Due(kT0).size(), 1u);
  // A share below one group's size still lets one group run.
  CampaignRun small =
      NewRun({{"a", "b", "c"}, {"d", "e", "f"}}, Settings(16, 0.1));
  EXPECT_EQ(small.Due(kT0).size(), 1u);
  EXPECT_THAT(small.Due(kT0), IsEmpty());
}

TEST(CampaignRunTest, ABusyNodeIsRetriedAndItsPartnerRegroupedAtOnce) {
  CampaignRun run = NewRun({{"a", "b"}, {"c", "d"}, {"e", "f"}}, Settings(1));
  std::vector<CampaignGroup> due = run.Due(kT0);
  ASSERT_EQ(due.size(), 1u);
  // a is busy: b is free and waits for a partner; c,d go next.
  run.Busy(due[0].id, {"a"}, kT0);
  due = run.Due(kT0);
  EXPECT_THAT(Nodes(due), ElementsAre(ElementsAre("c", "d")));
  run.Measured(due[0].id);
  // b takes a measured node that is free (c) as its partner, queued after
  // the groups planned before it.
  due = run.Due(kT0);
  EXPECT_THAT(Nodes(due), ElementsAre(ElementsAre("e", "f")));
  run.Measured(due[0].id);
  due = run.Due(kT0);
  EXPECT_THAT(Nodes(due), ElementsAre(ElementsAre("b", "c")));
  run.Measured(due[0].id);
  // a waits for its retry time.
  EXPECT_THAT(run.Due(kT0 + absl::Minutes(9)), IsEmpty());
  EXPECT_EQ(run.NextWake(kT0), kT0 + absl::Minutes(10));
  EXPECT_FALSE(run.Finished(kT0 + absl::Minutes(9)));
  due = run.Due(kT0 + absl::Minutes(10));
  ASSERT_EQ(due.size(), 1u);
  EXPECT_THAT(due[0].nodes, ElementsAre("a", "b"));
  run.Measured(due[0].id);
  EXPECT_TRUE(run.FirstPassDone(kT0 + absl::Minutes(10)));
  EXPECT_TRUE(run.Finished(kT0 + absl::Minutes(10)));
  EXPECT_THAT(run.Unmeasured(), IsEmpty());
}

TEST(CampaignRunTest, ANodeBusyForTheWholeWindowEndsUnmeasured) {
  CampaignRun run = NewRun({{"a"}, {"b"}}, Settings(4));
  std::vector<CampaignGroup> due = run.Due(kT0);
  ASSERT_EQ(due.size(), 2u);
  run.Measured(due[1].id);
  absl::Time now = kT0;
  run.Busy(due[0].id, {"a"}, now);
  int tries = 1;
  while (!run.Finished(now)) {
    now = run.NextWake(now);
    ASSERT_LT(now, absl::InfiniteFuture());
    for (const CampaignGroup& g : run.Due(now)) {
      ++tries;
      run.Busy(g.id, {"a"}, now);
    }
  }
  // Tried at 0, 10, ..., 50 min; the window ended at 60.
  EXPECT_EQ(tries, 6);
  EXPECT_EQ(now, kT0 + absl::Hours(1));
  EXPECT_THAT(run.Unmeasured(), ElementsAre("a"));
  EXPECT_TRUE(run.FirstPassDone(now));
  EXPECT_THAT(run.Due(now), IsEmpty());  // nothing starts after the window
}

// Found by tests/integration/campaign_check.sh: a busy node's retry borrows
// a measured partner; when the node is still busy, the partner must only be
// freed, not queued as if it needed a measurement (it was measured again
// and again, once per retry, with another lent partner).
TEST(CampaignRunTest, ABorrowedPartnerIsFreedNotRemeasuredWhenTheNodeIsBusy) {
  CampaignRun run = NewRun({{"a", "b"}, {"c", "d"}}, Settings(4));
  std::vector<CampaignGroup> due = run.Due(kT0);
  ASSERT_EQ(due.size(), 2u);
  run.Busy(due[0].id, {"a"}, kT0);  // b is regrouped with a measured node
  run.Measured(due[1].id);
  due = run.Due(kT0);
  ASSERT_EQ(due.size(), 1u);
  EXPECT_THAT(due[0].nodes, ElementsAre("b", "c"));
  run.Measured(due[0].id);
  absl::Time now = kT0;
  int groups = 0;
  for (int wakes = 0; !run.Finished(now); ++wakes) {
    ASSERT_LT(wakes, 100) << "the campaign never ends";
    now = run.NextWake(now);
    ASSERT_LT(now, absl::InfiniteFuture());
    for (const CampaignGroup& g : run.Due(now)) {
      ++groups;
      // Each retry is a with one measured partner, and a is still busy.
      ASSERT_EQ(g.nodes.size(), 2u);
      EXPECT_EQ(g.nodes[0], "a");
      run.Busy(g.id, {"a"}, now);
      // The partner is free, but needs nothing: no group starts now.
      EXPECT_THAT(run.Due(now), IsEmpty());
    }
  }
  EXPECT_EQ(groups, 5);  // at 10, 20, ..., 50 min: a alone is retried
  EXPECT_THAT(run.Unmeasured(), ElementsAre("a"));
}

TEST(CampaignRunTest, ALoneNodeWithNoPartnerWaitsUntilTheWindowEnds) {
  // Two nodes, one busy throughout: the other cannot be measured in pairs.
  CampaignRun run = NewRun({{"a", "b"}}, Settings(4));
  std::vector<CampaignGroup> due = run.Due(kT0);
  run.Busy(due[0].id, {"b"}, kT0);
  EXPECT_THAT(run.Due(kT0), IsEmpty());
  EXPECT_EQ(run.NextWake(kT0), kT0 + absl::Minutes(10));
  due = run.Due(kT0 + absl::Minutes(10));
  ASSERT_EQ(due.size(), 1u);  // both due again: paired with each other
  EXPECT_THAT(due[0].nodes, ElementsAre("a", "b"));
}

TEST(CampaignRunTest, SecondPassesWaitForTheirNodesAndRetryAsTheyAre) {
  CampaignRun run = NewRun({{"a", "b"}, {"c", "d"}}, Settings(4));
  std::vector<CampaignGroup> first = run.Due(kT0);
  ASSERT_EQ(first.size(), 2u);
  run.Measured(first[0].id);
  // A second pass (a with partner c) while c is still running: it waits.
  run.AddSecondPasses(
      {{"a", "c"}, {"a", "d"}});  // the second overlaps: dropped
  EXPECT_THAT(run.Due(kT0), IsEmpty());
  EXPECT_FALSE(run.FirstPassDone(kT0));
  run.Measured(first[1].id);
  EXPECT_TRUE(run.FirstPassDone(kT0));
  std::vector<CampaignGroup> due = run.Due(kT0);
  ASSERT_EQ(due.size(), 1u);
  EXPECT_TRUE(due[0].second_pass);
  EXPECT_THAT(due[0].nodes, ElementsAre("a", "c"));
  run.Busy(due[0].id, {"c"}, kT0);
  EXPECT_FALSE(run.Finished(kT0));
  due = run.Due(kT0 + absl::Minutes(10));
  ASSERT_EQ(due.size(), 1u);
  EXPECT_THAT(due[0].nodes, ElementsAre("a", "c"));
  run.Measured(due[0].id);
  EXPECT_TRUE(run.Finished(kT0 + absl::Minutes(10)));
}

TEST(CampaignRunTest, BadSettingsAndGroupsAreRefusedNamingTheField) {
  struct Case {
    CampaignSettings settings;
    std::string field;
  };
  std::vector<Case> cases;
  cases.push_back({Settings(0), "max_concurrent_groups: 0"});
  cases.push_back(
      {Settings(kMaxConcurrentGroups + 1), "max_concurrent_groups"});
  cases.push_back({Settings(1, 0), "max_fleet_fraction: 0"});
  cases.push_back({Settings(1, 1.5), "max_fleet_fraction"});
  CampaignSettings long_window = Settings(1);
  long_window.window = absl::Hours(24 * 8);
  cases.push_back({long_window, "window: 192h"});
  CampaignSettings slow_retry = Settings(1);
  slow_retry.busy_retry = absl::Hours(2);
  cases.push_back({slow_retry, "busy_retry: 2h"});
  for (const Case& c : cases) {
    absl::StatusOr<CampaignRun> run =
        CampaignRun::Create({{"a"}}, c.settings, kT0);
    EXPECT_EQ(run.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(run.status().message(), HasSubstr(c.field));
    EXPECT_THAT(run.status().message(), HasSubstr("allowed"));
  }
  EXPECT_THAT(CampaignRun::Create({{"a"}, {"b", "a"}}, Settings(1), kT0)
                  .status()
                  .message(),
              HasSubstr("\"a\" is in two groups"));
  EXPECT_FALSE(CampaignRun::Create({{}}, Settings(1), kT0).ok());
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::core
