// Campaigns end to end on a simulated fleet: the first pass from PlanGroups,
// the second passes from NodeVerdictBook, until none is due; the verdicts
// must name the slow node and nobody else, and nobody on a healthy fleet.
#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "daemon/core/campaign_groups.h"
#include "daemon/core/node_verdict.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/core/sim_fleet.h"

namespace fabricpulse::core {
namespace {
namespace FP_UNITY_ID {

using ::testing::ElementsAre;

const absl::Time kT0 = absl::FromUnixSeconds(1700000000);
constexpr double kRef = kSimRef;

// Runs `campaigns` pairwise campaigns an hour apart, each a first pass and
// second passes until none is due (at most 8 rounds); returns the end time.
absl::Time RunCampaigns(SimFleet& fleet, NodeVerdictBook& book, int campaigns) {
  absl::Time now = kT0;
  const GroupingSpec spec{Grouping::kPairs, 0, "rack"};
  for (int c = 0; c < campaigns; ++c) {
    now += absl::Hours(1);
    for (const auto& group : PlanGroups(spec, fleet.nodes(), c)) {
      EXPECT_TRUE(book.Record(fleet.Measure(group, now)).ok());
    }
    for (int round = 0; round < 8; ++round) {
      const SecondPassPlan plan =
          book.PlanSecondPasses(fleet.nodes(), "rack", now);
      EXPECT_TRUE(plan.waiting.empty());
      if (plan.passes.empty()) break;
      now += absl::Minutes(1);
      for (const SecondPass& pass : plan.passes) {
        EXPECT_TRUE(book.Record(fleet.Measure(pass.nodes, now)).ok());
      }
    }
  }
  return now;
}

std::map<std::string, NodeVerdict> Verdicts(const SimFleet& fleet,
                                            const NodeVerdictBook& book,
                                            absl::Time now) {
  std::map<std::string, NodeVerdict> out;
  for (const CampaignNode& n : fleet.nodes()) {
    out[n.name] = book.Status(n.name, now).verdict;
  }
  return out;
}

// A completed sweep of `nodes` at `share` of the reference.
GroupResult Result(std::vector<std::string> nodes, double share,
                   absl::Time at) {
  GroupResult r;
  r.nodes = std::move(nodes);
  r.ok = true;
  r.busbw = share * kRef;
  r.reference_busbw = kRef;
  r.at = at;
  return r;
}

NodeVerdictBook Book(VerdictThresholds thresholds) {
  VerdictRules rules;
  rules.thresholds = thresholds;
  auto book = NodeVerdictBook::Create(rules);
  EXPECT_TRUE(book.ok());
  return *std::move(book);
}

TEST(CampaignVerdictTest, SecondPassesWaitWithoutPartnersAndPreferRacks) {
  NodeVerdictBook book = Book(VerdictThresholds{});
  ASSERT_TRUE(book.Record(Result({"a", "b"}, 0.5, kT0)).ok());
  std::vector<CampaignNode> fleet = {{"a", {{"rack", "r1"}}},
                                     {"b", {{"rack", "r2"}}}};
  SecondPassPlan plan = book.PlanSecondPasses(fleet, "rack", kT0);
  EXPECT_TRUE(plan.passes.empty());
  EXPECT_THAT(plan.waiting, ElementsAre("a", "b"));
  // One passed node: the first suspect gets it, the other waits.
  ASSERT_TRUE(book.Record(Result({"p", "q"}, 1.0, kT0)).ok());
  fleet.push_back({"p", {{"rack", "r1"}}});
  plan = book.PlanSecondPasses(fleet, "rack", kT0);
  ASSERT_EQ(plan.passes.size(), 1u);
  EXPECT_THAT(plan.passes[0].nodes, ElementsAre("a", "p"));
  EXPECT_THAT(plan.waiting, ElementsAre("b"));
  // Two passed nodes: each suspect gets another rack's where it can.
  fleet.push_back({"q", {{"rack", "r2"}}});
  plan = book.PlanSecondPasses(fleet, "rack", kT0);
  ASSERT_EQ(plan.passes.size(), 2u);
  EXPECT_THAT(plan.passes[0].nodes, ElementsAre("a", "q"));
  EXPECT_THAT(plan.passes[1].nodes, ElementsAre("b", "p"));
  EXPECT_TRUE(plan.waiting.empty());
}

TEST(CampaignVerdictTest, NoisyHealthyFleetNamesNobodyFail) {
  // +-15% around the reference with the default 0.9/0.7 thresholds: some
  // measurements fall below warn, none below critical.
  SimFleet fleet(16, 0.15);
  NodeVerdictBook book = Book(VerdictThresholds{});
  const absl::Time end = RunCampaigns(fleet, book, 10);
  for (const auto& [node, verdict] : Verdicts(fleet, book, end)) {
    EXPECT_NE(verdict, NodeVerdict::kFail) << node;
    EXPECT_NE(verdict, NodeVerdict::kSuspect) << node;
  }
}

TEST(CampaignVerdictTest, QuietHealthyFleetIsAllPass) {
  SimFleet fleet(16, 0.05);
  NodeVerdictBook book = Book(VerdictThresholds{});
  const absl::Time end = RunCampaigns(fleet, book, 10);
  for (const auto& [node, verdict] : Verdicts(fleet, book, end)) {
    EXPECT_EQ(verdict, NodeVerdict::kPass) << node;
  }
}

TEST(CampaignVerdictTest, SlowNodeFailsAfterSecondPassAndPartnerPasses) {
  // Thresholds below the noise floor (0.85), so that only the fault shows.
  SimFleet fleet(16, 0.15);
  fleet.Slow("gpu-105", 0.5);
  NodeVerdictBook book = Book(VerdictThresholds{0.8, 0.6});
  // The first pass alone: the slow node and its partner are suspects.
  std::string partner;
  {
    const GroupingSpec spec{Grouping::kPairs, 0, "rack"};
    for (const auto& group : PlanGroups(spec, fleet.nodes(), 0)) {
      ASSERT_TRUE(book.Record(fleet.Measure(group, kT0)).ok());
      if (group[0] == "gpu-105") partner = group[1];
      if (group[1] == "gpu-105") partner = group[0];
    }
  }
  ASSERT_FALSE(partner.empty());
  for (const auto& [node, verdict] : Verdicts(fleet, book, kT0)) {
    const bool named = node == "gpu-105" || node == partner;
    EXPECT_EQ(verdict, named ? NodeVerdict::kSuspect : NodeVerdict::kPass)
        << node;
  }
  // The second pass, then more campaigns with rotating partners.
  const absl::Time end = RunCampaigns(fleet, book, 3);
  for (const auto& [node, verdict] : Verdicts(fleet, book, end)) {
    EXPECT_EQ(verdict,
              node == "gpu-105" ? NodeVerdict::kFail : NodeVerdict::kPass)
        << node;
  }
  const NodeStatus bad = book.Status("gpu-105", end);
  ASSERT_FALSE(bad.evidence.empty());
  EXPECT_EQ(bad.evidence.back().detail, "below critical");
  EXPECT_LT(bad.evidence.back().busbw, bad.evidence.back().threshold_busbw);
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::core
