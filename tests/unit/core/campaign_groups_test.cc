#include "daemon/core/campaign_groups.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fabricpulse::core {
namespace {
namespace FP_UNITY_ID {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

using Groups = std::vector<std::vector<std::string>>;

// n nodes "n00", "n01", ...; with racks > 0, node i is in rack i % racks.
std::vector<CampaignNode> Fleet(int n, int racks = 0) {
  std::vector<CampaignNode> fleet;
  for (int i = 0; i < n; ++i) {
    CampaignNode node{absl::StrCat("n", i < 10 ? "0" : "", i), {}};
    if (racks > 0) node.labels["rack"] = absl::StrCat("r", i % racks);
    fleet.push_back(std::move(node));
  }
  return fleet;
}

GroupingSpec Spec(Grouping kind, int k = 0, std::string group_by = "") {
  return GroupingSpec{kind, k, std::move(group_by)};
}

std::map<std::string, std::string> RackOf(
    const std::vector<CampaignNode>& fleet) {
  std::map<std::string, std::string> rack;
  for (const CampaignNode& n : fleet) {
    auto it = n.labels.find("rack");
    rack[n.name] = it == n.labels.end() ? "" : it->second;
  }
  return rack;
}

// Every node of `fleet` in exactly one group; groups sorted inside and out.
void ExpectCoversOnce(const Groups& groups,
                      const std::vector<CampaignNode>& fleet) {
  std::multiset<std::string> seen;
  for (const auto& g : groups) {
    EXPECT_TRUE(std::is_sorted(g.begin(), g.end()));
    seen.insert(g.begin(), g.end());
  }
  EXPECT_TRUE(std::is_sorted(groups.begin(), groups.end()));
  std::multiset<std::string> want;
  for (const CampaignNode& n : fleet) want.insert(n.name);
  EXPECT_EQ(seen, want);
}

TEST(ParseGroupingTest, ReadsEverySpellingAndWritesItBack) {
  for (const char* text :
       {"node", "pairs", "groups:2", "groups:16", "groups:1024", "all"}) {
    auto spec = ParseGrouping(text);
    ASSERT_TRUE(spec.ok()) << text << ": " << spec.status();
    EXPECT_EQ(GroupingText(*spec), text);
    EXPECT_TRUE(spec->group_by.empty());
  }
  auto spec = ParseGrouping("  groups:8 ");
  ASSERT_TRUE(spec.ok());
  EXPECT_EQ(spec->kind, Grouping::kGroups);
  EXPECT_EQ(spec->k, 8);
}

TEST(ParseGroupingTest, RefusesOtherTextWithOneLineNamingTheField) {
  for (const char* text :
       {"", "nodes", "Node", "groups", "groups:", "groups:1", "groups:0",
        "groups:1025", "groups:+8", "groups: 8", "groups:8x", "groups:-2",
        "groups:99999999999", "pairs:2", "all\nnode"}) {
    auto spec = ParseGrouping(text);
    ASSERT_FALSE(spec.ok()) << text;
    EXPECT_EQ(spec.status().code(), absl::StatusCode::kInvalidArgument);
    const std::string message(spec.status().message());
    EXPECT_THAT(message, StartsWith("grouping: "));
    EXPECT_THAT(message, HasSubstr("allowed: node, pairs, groups:K (K from 2 "
                                   "to 1024), all"));
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

TEST(PlanGroupsTest, EmptyFleetHasNoGroups) {
  for (Grouping kind :
       {Grouping::kNode, Grouping::kPairs, Grouping::kGroups, Grouping::kAll}) {
    EXPECT_TRUE(PlanGroups(Spec(kind, 4), {}, 3).empty());
  }
}

TEST(PlanGroupsTest, NodeAndAllIgnoreOrderAndRepeats) {
  std::vector<CampaignNode> fleet = {
      {"c", {}}, {"a", {}}, {"b", {}}, {"a", {}}};
  EXPECT_EQ(PlanGroups(Spec(Grouping::kNode), fleet, 0),
            (Groups{{"a"}, {"b"}, {"c"}}));
  EXPECT_EQ(PlanGroups(Spec(Grouping::kAll), fleet, 7),
            (Groups{{"a", "b", "c"}}));
}

TEST(PlanGroupsTest, GroupsAreChunksAndNoneIsALoneNode) {
  // 10 by 4: the last chunk is smaller but not alone.
  Groups groups = PlanGroups(Spec(Grouping::kGroups, 4), Fleet(10), 0);
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_THAT(groups[0], ElementsAre("n00", "n01", "n02", "n03"));
  EXPECT_THAT(groups[2], ElementsAre("n08", "n09"));
  // 9 by 4: the lone last node joins the chunk before.
  groups = PlanGroups(Spec(Grouping::kGroups, 4), Fleet(9), 0);
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_THAT(groups[1], ElementsAre("n04", "n05", "n06", "n07", "n08"));
  for (int n = 2; n <= 20; ++n) {
    for (int k : {2, 3, 5, 8}) {
      const auto fleet = Fleet(n);
      groups = PlanGroups(Spec(Grouping::kGroups, k), fleet, 0);
      ExpectCoversOnce(groups, fleet);
      for (const auto& g : groups) {
        EXPECT_GE(g.size(), 2u) << n << " by " << k;
        EXPECT_LE(g.size(), static_cast<size_t>(k + 1)) << n << " by " << k;
      }
    }
  }
  // A fleet of one node, and K beyond the fleet.
  EXPECT_EQ(PlanGroups(Spec(Grouping::kGroups, 4), Fleet(1), 0),
            (Groups{{"n00"}}));
  EXPECT_EQ(PlanGroups(Spec(Grouping::kGroups, 64), Fleet(3), 0).size(), 1u);
}

TEST(PlanGroupsTest, PairsCoverEveryNodeOnceAndEveryPairOverARotation) {
  for (int n = 2; n <= 12; n += 2) {
    const auto fleet = Fleet(n);
    std::set<std::pair<std::string, std::string>> met;
    for (uint64_t rotation = 0; rotation < static_cast<uint64_t>(n - 1);
         ++rotation) {
      const Groups groups = PlanGroups(Spec(Grouping::kPairs), fleet, rotation);
      ExpectCoversOnce(groups, fleet);
      for (const auto& g : groups) {
        ASSERT_EQ(g.size(), 2u);
        EXPECT_TRUE(met.insert({g[0], g[1]}).second) << "met twice";
      }
    }
    EXPECT_EQ(met.size(), static_cast<size_t>(n * (n - 1) / 2)) << n;
    // The rotation wraps, and the fleet's order does not matter.
    auto reversed = fleet;
    std::reverse(reversed.begin(), reversed.end());
    EXPECT_EQ(PlanGroups(Spec(Grouping::kPairs), reversed, n - 1),
              PlanGroups(Spec(Grouping::kPairs), fleet, 0));
  }
}

TEST(PlanGroupsTest, OddPairsPutTheLeftOverNodeInATrio) {
  EXPECT_EQ(PlanGroups(Spec(Grouping::kPairs), Fleet(1), 5), (Groups{{"n00"}}));
  EXPECT_EQ(PlanGroups(Spec(Grouping::kPairs), Fleet(3), 0),
            (Groups{{"n00", "n01", "n02"}}));
  for (int n = 5; n <= 13; n += 2) {
    const auto fleet = Fleet(n);
    for (uint64_t rotation = 0; rotation < 5; ++rotation) {
      const Groups groups = PlanGroups(Spec(Grouping::kPairs), fleet, rotation);
      ExpectCoversOnce(groups, fleet);
      int trios = 0;
      for (const auto& g : groups) {
        EXPECT_TRUE(g.size() == 2 || g.size() == 3);
        trios += g.size() == 3 ? 1 : 0;
      }
      EXPECT_EQ(trios, 1) << n;
    }
  }
}

TEST(PlanGroupsTest, GroupByPrefersPartnersInAnotherRack) {
  // Two racks of four: every rotation pairs across racks only, and seven
  // campaigns measure all 16 cross-rack pairs.
  const auto fleet = Fleet(8, 2);
  const auto rack = RackOf(fleet);
  std::set<std::vector<std::string>> met;
  for (uint64_t rotation = 0; rotation < 7; ++rotation) {
    const Groups groups =
        PlanGroups(Spec(Grouping::kPairs, 0, "rack"), fleet, rotation);
    ExpectCoversOnce(groups, fleet);
    for (const auto& g : groups) {
      ASSERT_EQ(g.size(), 2u);
      EXPECT_NE(rack.at(g[0]), rack.at(g[1])) << g[0] << "-" << g[1];
      met.insert(g);
    }
  }
  EXPECT_EQ(met.size(), 16u);  // all 16 cross-rack pairs in 7 campaigns
  // The same plan every time for the same rotation.
  EXPECT_EQ(PlanGroups(Spec(Grouping::kPairs, 0, "rack"), fleet, 3),
            PlanGroups(Spec(Grouping::kPairs, 0, "rack"), fleet, 3));
}

TEST(PlanGroupsTest, GroupByChangesNothingWhenEveryPairAlreadyDiffers) {
  // One rack per node: round r of the circle method stands as it is.
  const auto fleet = Fleet(10, 10);
  for (uint64_t rotation = 0; rotation < 9; ++rotation) {
    EXPECT_EQ(PlanGroups(Spec(Grouping::kPairs, 0, "rack"), fleet, rotation),
              PlanGroups(Spec(Grouping::kPairs), fleet, rotation));
  }
  // One rack for all (or no such label): nobody to prefer, plain rounds.
  for (const auto& same : {Fleet(10, 1), Fleet(10)}) {
    EXPECT_EQ(PlanGroups(Spec(Grouping::kPairs, 0, "rack"), same, 4),
              PlanGroups(Spec(Grouping::kPairs), same, 4));
  }
}

TEST(PlanGroupsTest, GroupByOnUnevenRacksStillPairsEveryNodeOnce) {
  // Six nodes in rack a, two in rack b: two pairs cross, the rest cannot.
  std::vector<CampaignNode> fleet = Fleet(8);
  for (int i = 0; i < 8; ++i) fleet[i].labels["rack"] = i < 6 ? "a" : "b";
  const auto rack = RackOf(fleet);
  for (uint64_t rotation = 0; rotation < 7; ++rotation) {
    const Groups groups =
        PlanGroups(Spec(Grouping::kPairs, 0, "rack"), fleet, rotation);
    ExpectCoversOnce(groups, fleet);
    int crossing = 0;
    for (const auto& g : groups) {
      ASSERT_EQ(g.size(), 2u);
      crossing += rack.at(g[0]) != rack.at(g[1]) ? 1 : 0;
    }
    EXPECT_EQ(crossing, 2) << rotation;
  }
}

// Any mix of labels: the fewest same-label pairs there can be, that is
// max(0, largest label - n / 2), every node once, for every rotation.
TEST(PlanGroupsTest, GroupByLeavesTheFewestSameLabelPairs) {
  uint64_t state = 7;
  const auto next = [&state](int bound) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<int>((state >> 33) % bound);
  };
  for (int trial = 0; trial < 200; ++trial) {
    const int n = 2 * (1 + next(12));
    const int racks = 1 + next(5);
    std::vector<CampaignNode> fleet = Fleet(n);
    std::map<std::string, int> per_rack;
    for (CampaignNode& node : fleet) {
      // Skewed: rack r0 is drawn about half the time.
      const int r = next(2) == 0 ? 0 : next(racks);
      node.labels["rack"] = absl::StrCat("r", r);
      per_rack[node.labels["rack"]]++;
    }
    int largest = 0;
    for (const auto& [rack, count] : per_rack)
      largest = std::max(largest, count);
    const auto rack = RackOf(fleet);
    for (uint64_t rotation = 0; rotation < 4; ++rotation) {
      const Groups groups =
          PlanGroups(Spec(Grouping::kPairs, 0, "rack"), fleet, rotation);
      ExpectCoversOnce(groups, fleet);
      int same = 0;
      for (const auto& g : groups) {
        ASSERT_EQ(g.size(), 2u);
        same += rack.at(g[0]) == rack.at(g[1]) ? 1 : 0;
      }
      EXPECT_EQ(same, std::max(0, largest - n / 2))
          << "trial " << trial << " rotation " << rotation;
    }
  }
}

TEST(PlanGroupsTest, GroupByPutsTheOddNodeWithOtherRacks) {
  // Racks r0 (n00, n03, n06), r1 (n01, n04), r2 (n02, n05).
  const auto fleet = Fleet(7, 3);
  const auto rack = RackOf(fleet);
  for (uint64_t rotation = 0; rotation < 7; ++rotation) {
    const Groups groups =
        PlanGroups(Spec(Grouping::kPairs, 0, "rack"), fleet, rotation);
    ExpectCoversOnce(groups, fleet);
    for (const auto& g : groups) {
      std::set<std::string> racks;
      for (const auto& n : g) racks.insert(rack.at(n));
      EXPECT_EQ(racks.size(), g.size()) << "rotation " << rotation;
    }
  }
}

TEST(PlanGroupsTest, LargeFleetsStayCoveredAcrossRacks) {
  std::vector<CampaignNode> fleet;
  for (int i = 0; i < 4096; ++i) {
    fleet.push_back({absl::StrCat("node-", 10000 + i),
                     {{"rack", absl::StrCat("r", i / 32)}}});
  }
  const auto rack = RackOf(fleet);
  const Groups groups =
      PlanGroups(Spec(Grouping::kPairs, 0, "rack"), fleet, 11);
  ExpectCoversOnce(groups, fleet);
  for (const auto& g : groups) {
    ASSERT_EQ(g.size(), 2u);
    EXPECT_NE(rack.at(g[0]), rack.at(g[1]));
  }
  // One rack for all: nothing to prefer, the plan still complete.
  for (CampaignNode& n : fleet) n.labels["rack"] = "same";
  ExpectCoversOnce(PlanGroups(Spec(Grouping::kPairs, 0, "rack"), fleet, 11),
                   fleet);
}

TEST(PairsWithTest, PrefersAnotherRackThenTheFirstByName) {
  const CampaignNode suspect{"s", {{"rack", "a"}}};
  const std::vector<CampaignNode> passed = {{"p3", {{"rack", "b"}}},
                                            {"p1", {{"rack", "a"}}},
                                            {"p2", {{"rack", "b"}}},
                                            {"s", {{"rack", "b"}}}};
  EXPECT_EQ(PairsWith(suspect, passed, "rack", {}), "p2");
  EXPECT_EQ(PairsWith(suspect, passed, "rack", {"p2"}), "p3");
  EXPECT_EQ(PairsWith(suspect, passed, "rack", {"p2", "p3"}), "p1");
  EXPECT_EQ(PairsWith(suspect, passed, "", {}), "p1");
  EXPECT_EQ(PairsWith(suspect, passed, "", {"p1", "p2", "p3"}), std::nullopt);
  EXPECT_EQ(PairsWith(suspect, {}, "rack", {}), std::nullopt);
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::core
