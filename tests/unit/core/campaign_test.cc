// Campaigns end to end on a simulated fleet and fake time: the schedule,
// the peer reference, the second passes and the verdicts they end in. Each
// fault has its opposite: the slow node, the dead agent and the busy node
// are named (or left untested) and nobody else is; a healthy fleet, noisy
// and with one-off bad numbers, names nobody, and the rate at which it
// would is measured.
#include "daemon/core/campaign.h"

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/core/sim_fleet.h"

namespace fabricpulse::core {
namespace {
namespace FP_UNITY_ID {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

const absl::Time kT0 = absl::FromUnixSeconds(1700000000);
constexpr absl::Duration kSweepTime = absl::Minutes(1);

NodeVerdictBook Book() {
  auto book = NodeVerdictBook::Create(VerdictRules{});
  EXPECT_TRUE(book.ok());
  return *std::move(book);
}

CampaignOptions Options() {
  CampaignOptions o;
  o.settings.max_concurrent_groups = 8;
  o.settings.max_fleet_fraction = 0.5;
  o.settings.window = absl::Hours(2);
  o.settings.busy_retry = absl::Minutes(10);
  o.group_by = "rack";
  return o;
}

struct Outcome {
  absl::Time end;
  CampaignSummary summary;
  int sweeps = 0;
};

// Runs one campaign to its end: every due group's sweep takes kSweepTime
// and all that start together end together; `busy` says which of a group's
// nodes are busy at a time (none by default).
Outcome RunCampaign(
    SimFleet& fleet, NodeVerdictBook& book, Grouping grouping,
    uint64_t rotation, absl::Time start,
    const CampaignOptions& options = Options(),
    const std::function<std::vector<std::string>(
        const std::vector<std::string>&, absl::Time)>& busy = nullptr) {
  const GroupingSpec spec{grouping, 0, "rack"};
  absl::StatusOr<Campaign> campaign =
      Campaign::Create(PlanGroups(spec, fleet.nodes(), rotation), fleet.nodes(),
                       options, start, &book);
  EXPECT_TRUE(campaign.ok()) << campaign.status();
  Outcome out;
  absl::Time now = start;
  for (int guard = 0; guard < 10000 && !campaign->Finished(now); ++guard) {
    std::vector<CampaignGroup> due = campaign->Due(now);
    if (due.empty()) {
      now = campaign->NextWake(now);
      EXPECT_LT(now, absl::InfiniteFuture());
      continue;
    }
    const absl::Time end = now + kSweepTime;
    for (const CampaignGroup& g : due) {
      std::vector<std::string> busy_nodes;
      if (busy) busy_nodes = busy(g.nodes, now);
      if (!busy_nodes.empty()) {
        campaign->Busy(g.id, busy_nodes, now);
        continue;
      }
      ++out.sweeps;
      EXPECT_TRUE(
          campaign->Measured(g.id, fleet.Sweep(g.nodes, end), end).ok());
    }
    now = end;
  }
  out.end = now;
  out.summary = campaign->Summary(now);
  return out;
}

std::map<std::string, NodeVerdict> Named(const SimFleet& fleet,
                                         const NodeVerdictBook& book,
                                         absl::Time now) {
  std::map<std::string, NodeVerdict> out;
  for (const NodeStatus& s : book.Statuses(fleet.names(), now)) {
    if (s.verdict != NodeVerdict::kPass) out[s.node] = s.verdict;
  }
  return out;
}

TEST(CampaignTest, HealthyFleetCoveredInOneCampaignNamesNobody) {
  for (Grouping grouping : {Grouping::kNode, Grouping::kPairs}) {
    SimFleet fleet(32, 0.15);
    NodeVerdictBook book = Book();
    const Outcome out = RunCampaign(fleet, book, grouping, 0, kT0);
    EXPECT_THAT(Named(fleet, book, out.end), IsEmpty());
    EXPECT_EQ(out.summary.progress.measured, 32u);
    EXPECT_THAT(out.summary.unmeasured, IsEmpty());
    EXPECT_EQ(out.summary.second_passes, 0);
    EXPECT_TRUE(out.summary.first_pass_judged);
    // 8 groups and 16 nodes at once at most: 32 single-node sweeps take 4
    // rounds, 16 pairs 2.
    EXPECT_EQ(out.end,
              kT0 + (grouping == Grouping::kNode ? 4 : 2) * kSweepTime);
  }
}

TEST(CampaignTest, OneBadNumberIsASuspectClearedByTheSecondPass) {
  // gpu-107's first sweep is slow, its second is not: a one-off.
  SimFleet fleet(16, 0.03);
  NodeVerdictBook book = Book();
  int sweeps_of_107 = 0;
  const Outcome first =
      RunCampaign(fleet, book, Grouping::kNode, 0, kT0, Options(),
                  [&](const std::vector<std::string>& nodes, absl::Time) {
                    if (nodes == std::vector<std::string>{"gpu-107"}) {
                      fleet.Slow("gpu-107", ++sweeps_of_107 == 1 ? 0.5 : 1.0);
                    }
                    return std::vector<std::string>{};
                  });
  EXPECT_EQ(sweeps_of_107, 2);
  EXPECT_EQ(first.summary.second_passes, 1);
  EXPECT_THAT(Named(fleet, book, first.end), IsEmpty());
  const NodeStatus s = book.Status("gpu-107", first.end);
  ASSERT_EQ(s.evidence.size(), 2u);
  EXPECT_EQ(s.evidence[0].detail, "below critical");
  EXPECT_EQ(s.evidence[1].detail, "ok");
}

// A shared bad mark, then a low one of its own with a partner that passed:
// the low is the node's first own mark (the bad one may have been its
// partner's), so it stays a suspect and the campaign measures it once more;
// that third result decides. Found by campaign_check in CI, where such a
// node was left a suspect at the campaign's end.
TEST(CampaignTest, ASuspectLeftSuspectByItsSecondPassGetsOneMore) {
  for (const double third : {1.0, 0.85}) {
    SimFleet fleet(16, 0.01);
    NodeVerdictBook book = Book();
    const std::vector<double> speeds = {0.5, 0.85, third};
    size_t sweeps_of_107 = 0;
    const Outcome out = RunCampaign(
        fleet, book, Grouping::kPairs, 0, kT0, Options(),
        [&](const std::vector<std::string>& nodes, absl::Time) {
          if (std::find(nodes.begin(), nodes.end(), "gpu-107") != nodes.end()) {
            fleet.Slow("gpu-107", speeds[std::min(sweeps_of_107++, 2ul)]);
          }
          return std::vector<std::string>{};
        });
    EXPECT_EQ(sweeps_of_107, 3u) << third;
    const NodeStatus s = book.Status("gpu-107", out.end);
    ASSERT_EQ(s.evidence.size(), 3u) << third;
    EXPECT_EQ(s.evidence[0].detail, "below critical");
    EXPECT_EQ(s.evidence[1].detail, "below warn");
    if (third == 1.0) {
      EXPECT_THAT(Named(fleet, book, out.end), IsEmpty());
    } else {
      EXPECT_THAT(Named(fleet, book, out.end),
                  ElementsAre(std::pair<const std::string, NodeVerdict>(
                      "gpu-107", NodeVerdict::kDegraded)));
    }
    // The first pair's partner and gpu-107 twice.
    EXPECT_EQ(out.summary.second_passes, 3) << third;
  }
}

// Found by tests/integration/campaign_check.sh (busbw in MB/s, as measured
// there on a 2-core machine): 5 pairs, one with a node at a tenth of the
// rate and two healthy pairs that happened to measure low. Judged against
// all five, the slow pair dragged the median to 17.0 and widened the spread
// to 7.0: 2.27 was not 3 spreads below and the slow node went unnamed.
// Each group is judged against the others alone: 19.35, spread 4.2.
TEST(CampaignTest, ASlowGroupNeitherDragsNorWidensItsOwnReference) {
  NodeVerdictBook book = Book();
  const std::vector<std::vector<std::string>> groups = {
      {"a", "b"}, {"c", "d"}, {"e", "f"}, {"g", "h"}, {"i", "j"}};
  std::vector<CampaignNode> fleet;
  for (const auto& g : groups) {
    for (const std::string& n : g) fleet.push_back({n, {}});
  }
  CampaignOptions options = Options();
  options.settings.max_fleet_fraction = 1;
  auto campaign = Campaign::Create(groups, fleet, options, kT0, &book);
  ASSERT_TRUE(campaign.ok()) << campaign.status();
  const std::map<std::string, double> mbs = {
      {"a", 23.5}, {"c", 16.0}, {"e", 21.7}, {"g", 2.27}, {"i", 17.0}};
  std::vector<CampaignGroup> due = campaign->Due(kT0);
  ASSERT_EQ(due.size(), 5u);
  for (const CampaignGroup& g : due) {
    GroupMeasurement m;
    m.ok = true;
    m.busbw = mbs.at(g.nodes[0]) * 1e6;
    m.sweep_id = g.nodes[0];
    m.at = kT0 + kSweepTime;
    ASSERT_TRUE(campaign->Measured(g.id, m, kT0 + kSweepTime).ok());
  }
  const absl::Time t = kT0 + kSweepTime;
  // The slow pair: suspects, their second passes planned; the healthy low
  // pairs are within their peers' spread: pass.
  EXPECT_EQ(book.Status("g", t).verdict, NodeVerdict::kSuspect);
  EXPECT_EQ(book.Status("h", t).verdict, NodeVerdict::kSuspect);
  EXPECT_EQ(book.Status("g", t).evidence.back().detail, "below critical");
  for (const std::string n : {"a", "b", "c", "d", "e", "f", "i", "j"}) {
    EXPECT_EQ(book.Status(n, t).verdict, NodeVerdict::kPass) << n;
  }
  EXPECT_EQ(campaign->Summary(t).second_passes, 2);
}

TEST(CampaignTest, SlowNodeIsConfirmedAndNobodyElseIsNamed) {
  struct Case {
    Grouping grouping;
    double speed;
    NodeVerdict verdict;
  };
  for (const Case& c : {Case{Grouping::kNode, 0.6, NodeVerdict::kFail},
                        Case{Grouping::kPairs, 0.6, NodeVerdict::kFail},
                        Case{Grouping::kNode, 0.8, NodeVerdict::kDegraded},
                        Case{Grouping::kPairs, 0.8, NodeVerdict::kDegraded}}) {
    SimFleet fleet(32, 0.03);
    fleet.Slow("gpu-105", c.speed);
    NodeVerdictBook book = Book();
    const Outcome out = RunCampaign(fleet, book, c.grouping, 0, kT0);
    EXPECT_THAT(Named(fleet, book, out.end),
                ElementsAre(std::make_pair("gpu-105", c.verdict)))
        << static_cast<int>(c.grouping) << " " << c.speed;
    // Pairs: the slow node and its partner were suspects; the partner's
    // second pass (with a node that passed) cleared it.
    EXPECT_EQ(out.summary.second_passes,
              c.grouping == Grouping::kPairs ? 2 : 1);
    const NodeStatus s = book.Status("gpu-105", out.end);
    ASSERT_FALSE(s.evidence.empty());
    EXPECT_GT(s.evidence.back().reference_busbw, 0.95 * kSimRef);
    EXPECT_LT(s.evidence.back().busbw, s.evidence.back().threshold_busbw);
  }
}

TEST(CampaignTest, DeadAgentFailsItsOwnGroupNotTheCampaign) {
  SimFleet fleet(16, 0.05);
  fleet.Kill("gpu-103");
  NodeVerdictBook book = Book();
  const Outcome out = RunCampaign(fleet, book, Grouping::kPairs, 0, kT0);
  EXPECT_THAT(Named(fleet, book, out.end),
              ElementsAre(std::make_pair("gpu-103", NodeVerdict::kFail)));
  EXPECT_EQ(out.summary.progress.measured, 16u);
  const NodeStatus s = book.Status("gpu-103", out.end);
  ASSERT_FALSE(s.evidence.empty());
  EXPECT_EQ(s.evidence.back().detail, "failed: agent gpu-103 is lost");
}

TEST(CampaignTest, BusyNodeIsCoveredWhenFreeOrLeftUntested) {
  // gpu-104 is busy for the first 25 minutes: covered at its third try.
  {
    SimFleet fleet(8, 0.05);
    NodeVerdictBook book = Book();
    const Outcome out =
        RunCampaign(fleet, book, Grouping::kPairs, 0, kT0, Options(),
                    [](const std::vector<std::string>& nodes, absl::Time now) {
                      for (const std::string& n : nodes) {
                        if (n == "gpu-104" && now < kT0 + absl::Minutes(25)) {
                          return std::vector<std::string>{n};
                        }
                      }
                      return std::vector<std::string>{};
                    });
    EXPECT_THAT(Named(fleet, book, out.end), IsEmpty());
    EXPECT_THAT(out.summary.unmeasured, IsEmpty());
    // Tried every 10 minutes while busy, measured at the first try after.
    const absl::Time tested = book.Status("gpu-104", out.end).last_tested;
    EXPECT_GE(tested, kT0 + absl::Minutes(25));
    EXPECT_LE(tested, kT0 + absl::Minutes(37));
  }
  // Busy for the whole window: untested, and nobody else is held back.
  {
    SimFleet fleet(8, 0.05);
    NodeVerdictBook book = Book();
    const Outcome out =
        RunCampaign(fleet, book, Grouping::kPairs, 0, kT0, Options(),
                    [](const std::vector<std::string>& nodes, absl::Time) {
                      for (const std::string& n : nodes) {
                        if (n == "gpu-104") return std::vector<std::string>{n};
                      }
                      return std::vector<std::string>{};
                    });
    EXPECT_THAT(out.summary.unmeasured, ElementsAre("gpu-104"));
    EXPECT_THAT(Named(fleet, book, out.end),
                ElementsAre(std::make_pair("gpu-104", NodeVerdict::kUntested)));
    EXPECT_EQ(out.end, kT0 + Options().settings.window);
    EXPECT_EQ(out.summary.progress.measured, 7u);
  }
}

TEST(CampaignTest, TooFewPeersJudgeOnlyFailuresUnlessAnExpectedBusbwIsSet) {
  SimFleet fleet(3, 0.02);
  fleet.Slow("gpu-101", 0.5);
  NodeVerdictBook book = Book();
  Outcome out = RunCampaign(fleet, book, Grouping::kNode, 0, kT0);
  EXPECT_TRUE(out.summary.references.empty());
  EXPECT_THAT(Named(fleet, book, out.end), IsEmpty());
  CampaignOptions absolute = Options();
  absolute.expected_busbw = kSimRef;
  out = RunCampaign(fleet, book, Grouping::kNode, 0, out.end, absolute);
  EXPECT_THAT(Named(fleet, book, out.end),
              ElementsAre(std::make_pair("gpu-101", NodeVerdict::kFail)));
  absolute.expected_busbw = -1;
  EXPECT_FALSE(Campaign::Create({{"a"}}, {}, absolute, kT0, &book).ok());
}

// Absolute references per op, size, path and GPU model (issue 28, item 4):
// a matching entry is the reference, as expected_busbw is; one that does not
// match the judged step leaves the peers (too few here: nobody is named).
TEST(CampaignTest, AMatchingThresholdIsTheReferenceAndOthersAreNot) {
  SimFleet fleet(3, 0.02);
  fleet.Slow("gpu-101", 0.5);
  NodeVerdictBook book = Book();
  CampaignOptions other = Options();
  other.thresholds = {{"all_gather", 0, "", "", kSimRef / 1e9}};
  Outcome out = RunCampaign(fleet, book, Grouping::kNode, 0, kT0, other);
  EXPECT_THAT(Named(fleet, book, out.end), IsEmpty());
  CampaignOptions any = Options();
  any.thresholds = {{"", 0, "", "", kSimRef / 1e9}};
  any.expected_busbw = kSimRef * 100;  // the matching entry comes first
  out = RunCampaign(fleet, book, Grouping::kNode, 0, out.end, any);
  EXPECT_THAT(Named(fleet, book, out.end),
              ElementsAre(std::make_pair("gpu-101", NodeVerdict::kFail)));
}

// The false-alarm rate, measured: 500 campaigns of 32 nodes on a healthy
// fabric with +-15 % noise where 2 % of all sweeps also run at half speed
// (one-off bad numbers). A node is named only when both its first pass and
// its second pass are bad, about 0.02^2 per node and campaign; the rule's
// measured rate must stay within 1e-3 per node-campaign (the figure is in
// docs/verdicts.md). Without the second pass, 2 % of nodes would be named.
TEST(CampaignTest, FalseAlarmRateOnAHealthyNoisyFleetIsMeasuredAndSmall) {
  int named = 0, suspects_seen = 0, node_campaigns = 0;
  for (uint64_t seed = 1; seed <= 500; ++seed) {
    SimFleet fleet(32, 0.15, seed);
    fleet.Hiccups(0.02, 0.5);
    NodeVerdictBook book = Book();
    const Grouping grouping =
        seed % 2 == 0 ? Grouping::kNode : Grouping::kPairs;
    const Outcome out = RunCampaign(fleet, book, grouping, seed, kT0);
    named += static_cast<int>(Named(fleet, book, out.end).size());
    suspects_seen += out.summary.second_passes;
    node_campaigns += 32;
  }
  const double rate = static_cast<double>(named) / node_campaigns;
  RecordProperty("false_alarm_rate", std::to_string(rate));
  RecordProperty("second_passes", std::to_string(suspects_seen));
  EXPECT_GT(suspects_seen, 100);  // the hiccups did make suspects
  EXPECT_LE(rate, 1e-3) << named << " of " << node_campaigns;
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::core
