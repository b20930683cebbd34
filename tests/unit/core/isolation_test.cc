#include "daemon/core/isolation.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fabricpulse::core {
namespace {
namespace FP_UNITY_ID {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A simulated fabric: every node and link at 10 GB/s unless slowed; a set's
// collective runs at its slowest link (a ring crosses them all in turn), a
// failing node fails every set it is in. With `noise`, every measurement
// (a collective, each rank pair of a check) is also scaled by a factor
// drawn uniformly from [1 - noise, 1 + noise], and with probability
// `hiccup_rate` halved (a one-off: a busy core, a retransmit), from a
// fixed generator: the same runs every time for the same seed.
struct Fabric {
  std::map<std::string, double> node_speed;
  std::map<std::pair<std::string, std::string>, double> link_speed;
  std::set<std::string> failing;
  double noise = 0;
  double hiccup_rate = 0;
  uint64_t state = 7;
  int collectives = 0;
  int pairwise_checks = 0;

  double Uniform() {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<double>(state >> 11) / static_cast<double>(1ull << 53);
  }
  double Noisy(double busbw) {
    if (noise == 0 && hiccup_rate == 0) return busbw;
    busbw *= 1 - noise + 2 * noise * Uniform();
    if (Uniform() < hiccup_rate) busbw *= 0.5;
    return busbw;
  }

  double Link(const std::string& a, const std::string& b) const {
    double s = 10e9;
    for (const std::string& n : {a, b}) {
      auto it = node_speed.find(n);
      if (it != node_speed.end()) s = std::min(s, it->second);
    }
    auto it = link_speed.find(std::minmax(a, b));
    if (it != link_speed.end()) s = std::min(s, it->second);
    return s;
  }

  IsolationProbe Probe() {
    IsolationProbe probe;
    probe.collective = [this](const std::vector<std::string>& nodes)
        -> absl::StatusOr<SetMeasurement> {
      collectives++;
      EXPECT_GE(nodes.size(), 2u);
      EXPECT_TRUE(std::is_sorted(nodes.begin(), nodes.end()));
      SetMeasurement m;
      for (const std::string& n : nodes) {
        if (failing.count(n)) {
          m.error = absl::StrCat("rank on ", n, " timed out");
          return m;
        }
      }
      m.ok = true;
      m.busbw = 1e30;
      for (size_t i = 0; i < nodes.size(); ++i) {
        for (size_t j = i + 1; j < nodes.size(); ++j) {
          m.busbw = std::min(m.busbw, Link(nodes[i], nodes[j]));
        }
      }
      m.busbw = Noisy(m.busbw);
      return m;
    };
    probe.pairwise = [this](const std::vector<std::string>& nodes)
        -> absl::StatusOr<std::vector<NodePairMeasurement>> {
      pairwise_checks++;
      std::vector<NodePairMeasurement> out;
      for (size_t i = 0; i < nodes.size(); ++i) {
        for (size_t j = i + 1; j < nodes.size(); ++j) {
          out.push_back({nodes[i], nodes[j],
                         failing.count(nodes[i]) || failing.count(nodes[j])
                             ? 0.0
                             : Noisy(Link(nodes[i], nodes[j]))});
        }
      }
      return out;
    };
    return probe;
  }
};

std::vector<std::string> Nodes(int n) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) out.push_back(absl::StrCat("node-", i));
  return out;
}

// O(log n): the whole set, two halves a round, each measured 3 times;
// then the pairwise runs.
int MaxCollectives(int n) {
  return kDefaultIsolateRepeats *
         (1 + 2 * static_cast<int>(std::ceil(std::log2(n))));
}

TEST(IsolationTest, NamesASlowNode) {
  for (int n : {4, 5, 8, 13, 32}) {
    for (int bad = 0; bad < n; bad += std::max(1, n / 4)) {
      SCOPED_TRACE(absl::StrCat(n, " nodes, bad node-", bad));
      Fabric fabric;
      fabric.node_speed[absl::StrCat("node-", bad)] = 1e9;
      auto report = Isolate(Nodes(n), fabric.Probe());
      ASSERT_TRUE(report.ok()) << report.status();
      EXPECT_EQ(report->verdict, "node") << report->summary;
      EXPECT_THAT(report->culprits, ElementsAre(absl::StrCat("node-", bad)));
      EXPECT_LE(fabric.collectives, MaxCollectives(n));
      EXPECT_EQ(fabric.pairwise_checks, kDefaultPairwiseRuns);
      EXPECT_THAT(report->summary, HasSubstr(absl::StrCat("node-", bad)));
      // The evidence: every set measured, then the check.
      EXPECT_EQ(report->rounds.front().role, "all");
      EXPECT_EQ(report->rounds.back().role, "pairwise check");
    }
  }
}

TEST(IsolationTest, NamesAFailingNode) {
  Fabric fabric;
  fabric.failing.insert("node-6");
  auto report = Isolate(Nodes(8), fabric.Probe());
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->verdict, "node") << report->summary;
  EXPECT_THAT(report->culprits, ElementsAre("node-6"));
  EXPECT_FALSE(report->rounds.front().result.ok);
}

TEST(IsolationTest, NamesABadLinkBetweenHalves) {
  Fabric fabric;
  fabric.link_speed[{"node-1", "node-6"}] = 1e9;
  auto report = Isolate(Nodes(8), fabric.Probe());
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->verdict, "link") << report->summary;
  EXPECT_THAT(report->culprits, ElementsAre("node-1", "node-6"));
}

// A link across the first split of 16 nodes (sorted by name: node-0,
// node-1, node-10..node-15 | node-2..node-9): the halves hold more than a
// pairwise check covers, so the crossing sets narrow it first (two rounds
// of 4 sets, each measured 3 times: 8 + 8 to 4 + 4 to 2 + 2 nodes), then
// the pairwise check names it.
TEST(IsolationTest, NarrowsABadLinkBetweenHalvesOfMoreThanEightNodes) {
  for (const auto& [a, b] : std::vector<std::pair<std::string, std::string>>{
           {"node-3", "node-12"},
           {"node-0", "node-9"},
           {"node-15", "node-2"}}) {
    Fabric fabric;
    fabric.link_speed[std::minmax(a, b)] = 1e9;
    auto report = Isolate(Nodes(16), fabric.Probe());
    ASSERT_TRUE(report.ok()) << report.status();
    EXPECT_EQ(report->verdict, "link") << report->summary;
    EXPECT_THAT(report->culprits, ElementsAre(std::min(a, b), std::max(a, b)))
        << report->summary;
    int crossing = 0;
    for (const IsolationRound& r : report->rounds) {
      crossing += r.role == "crossing";
    }
    EXPECT_EQ(crossing, 2 * 4 * kDefaultIsolateRepeats) << report->summary;
  }
}

// Under the same noise as above, 16 nodes: healthy, nobody is named; a
// link 30 % slow across the first split is named alone in most runs (before
// narrowing, every such search stopped at 16 suspects, verdict "nodes"; a
// run whose crossing sets do not stand out still does), and rarely is a
// healthy link named beside it.
TEST(IsolationTest, SixteenNodesUnderNoiseNarrowA30PercentLinkAcrossHalves) {
  int false_alarms = 0, found = 0, not_narrowed = 0, wrong = 0;
  constexpr int kRuns = 100;
  for (int run = 0; run < kRuns; ++run) {
    Fabric healthy;
    healthy.noise = 0.15;
    healthy.hiccup_rate = 0.02;
    healthy.state = 9000 + run;
    auto report = Isolate(Nodes(16), healthy.Probe());
    ASSERT_TRUE(report.ok()) << report.status();
    if (!report->culprits.empty()) ++false_alarms;

    Fabric bad = healthy;
    bad.state = 9500 + run;
    bad.link_speed[{"node-12", "node-3"}] = 7e9;
    report = Isolate(Nodes(16), bad.Probe());
    ASSERT_TRUE(report.ok()) << report.status();
    if (report->culprits == std::vector<std::string>{"node-12", "node-3"}) {
      ++found;
    } else if (report->verdict == "nodes") {
      ++not_narrowed;
    } else if (!report->culprits.empty()) {
      ++wrong;
    }
  }
  std::printf(
      "isolation of 16 nodes under noise: %d of %d healthy runs named "
      "someone; a 30 %% slow link across the halves found in %d of %d, not "
      "narrowed in %d, someone else named in %d\n",
      false_alarms, kRuns, found, kRuns, not_narrowed, wrong);
  EXPECT_LE(false_alarms, kRuns / 100);
  EXPECT_GE(found, kRuns * 7 / 10);
  EXPECT_LE(wrong, kRuns / 50);
}

TEST(IsolationTest, NamesABadLinkWithinAHalf) {
  Fabric fabric;
  fabric.link_speed[{"node-4", "node-5"}] = 1e9;
  auto report = Isolate(Nodes(8), fabric.Probe());
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->verdict, "link") << report->summary;
  EXPECT_THAT(report->culprits, ElementsAre("node-4", "node-5"));
}

TEST(IsolationTest, NamesNobodyWhenNothingIsWrong) {
  for (int n : {2, 3, 4, 9}) {
    SCOPED_TRACE(n);
    Fabric fabric;
    // Within the threshold (0.9 of its peers).
    fabric.node_speed["node-1"] = 9.5e9;
    auto report = Isolate(Nodes(n), fabric.Probe());
    ASSERT_TRUE(report.ok()) << report.status();
    EXPECT_EQ(report->verdict, "none") << report->summary;
    EXPECT_TRUE(report->culprits.empty());
  }
}

// The regression rule's drops localise: a node 20 % slow, and a link 30 %
// slow, are named once they stand out of the spread.
TEST(IsolationTest, NamesTheDropsARegressionReports) {
  {
    Fabric fabric;
    fabric.node_speed["node-5"] = 8e9;
    auto report = Isolate(Nodes(8), fabric.Probe());
    ASSERT_TRUE(report.ok()) << report.status();
    EXPECT_THAT(report->culprits, ElementsAre("node-5")) << report->summary;
  }
  {
    Fabric fabric;
    fabric.noise = 0.05;
    fabric.link_speed[{"node-2", "node-3"}] = 7e9;
    auto report = Isolate(Nodes(4), fabric.Probe());
    ASSERT_TRUE(report.ok()) << report.status();
    EXPECT_EQ(report->verdict, "link") << report->summary;
    EXPECT_THAT(report->culprits, ElementsAre("node-2", "node-3"));
  }
}

// Measured rates on a noisy fabric (+-15 % per measurement, and 2 % of
// measurements at half speed), 200 isolations each of 4 and 8 nodes, with
// the defaults (3 measurements a set, 3 pairwise runs). Measured: healthy,
// 1 of 400 named someone; a link 30 % slow (3.4 standard deviations of
// this noise), named alone in 317 of 400, someone else named (beside it or
// instead) in 6, nobody in the rest ("nothing confirmed": the collective
// saw it, the pairwise runs did not confirm it). The bounds keep that
// quality: at most 1 % false alarms, at least 75 % found, at most 2 %
// wrong. The figures are printed (and in docs/isolate.md).
TEST(IsolationTest, UnderNoiseNamesNobodyHealthyAndFindsA30PercentLink) {
  int false_alarms = 0, found = 0, wrong = 0;
  constexpr int kRuns = 200;
  for (int n : {4, 8}) {
    for (int run = 0; run < kRuns; ++run) {
      Fabric healthy;
      healthy.noise = 0.15;
      healthy.hiccup_rate = 0.02;
      healthy.state = 1000 + run;
      auto report = Isolate(Nodes(n), healthy.Probe());
      ASSERT_TRUE(report.ok()) << report.status();
      if (!report->culprits.empty()) ++false_alarms;

      Fabric bad = healthy;
      bad.state = 5000 + run;
      bad.link_speed[{"node-1", absl::StrCat("node-", n - 1)}] = 7e9;
      report = Isolate(Nodes(n), bad.Probe());
      ASSERT_TRUE(report.ok()) << report.status();
      if (report->culprits ==
          std::vector<std::string>{"node-1", absl::StrCat("node-", n - 1)}) {
        ++found;
      } else if (!report->culprits.empty()) {
        ++wrong;
      }
    }
  }
  std::printf(
      "isolation under noise: %d of %d healthy runs named someone; a 30 %% "
      "slow link found in %d of %d, someone else named in %d\n",
      false_alarms, 2 * kRuns, found, 2 * kRuns, wrong);
  EXPECT_LE(false_alarms, 2 * kRuns / 100);
  EXPECT_GE(found, 2 * kRuns * 3 / 4);
  EXPECT_LE(wrong, 2 * kRuns / 50);
}

TEST(IsolationTest, OptionsOutOfRangeAreRefused) {
  Fabric fabric;
  IsolateOptions options;
  options.repeats = 0;
  auto report = Isolate(Nodes(4), fabric.Probe(), options);
  EXPECT_EQ(report.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(report.status().message()),
              HasSubstr("repeats: 0 is out of range; allowed: 1 to 9"));
  options.repeats = 1;
  options.pairwise_runs = 10;
  report = Isolate(Nodes(4), fabric.Probe(), options);
  EXPECT_THAT(std::string(report.status().message()),
              HasSubstr("pairwise_runs: 10"));
  EXPECT_EQ(fabric.collectives, 0);
}

TEST(IsolationTest, ThreeNodesGoStraightToThePairwiseCheck) {
  Fabric fabric;
  fabric.node_speed["node-2"] = 1e9;
  auto report = Isolate(Nodes(3), fabric.Probe());
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->verdict, "node") << report->summary;
  EXPECT_THAT(report->culprits, ElementsAre("node-2"));
  EXPECT_EQ(fabric.collectives, kDefaultIsolateRepeats);
}

TEST(IsolationTest, TwoBadNodesOfOneHalfAreBothNamed) {
  Fabric fabric;
  fabric.node_speed["node-1"] = 1e9;
  fabric.node_speed["node-2"] = 1e9;
  auto report = Isolate(Nodes(8), fabric.Probe());
  ASSERT_TRUE(report.ok()) << report.status();
  // Both quarters of the slow half are slow: the pairwise check over them
  // and two cleared nodes sees the two.
  EXPECT_EQ(report->verdict, "nodes") << report->summary;
  EXPECT_THAT(report->culprits, ElementsAre("node-1", "node-2"));
}

// The limit of comparing sets with each other: a fault in each half of the
// first split leaves no set faster than another, so nothing stands out
// (the matrix, or a plan's baseline, tells then).
TEST(IsolationTest, FaultsInBothFirstHalvesLeaveNoReference) {
  Fabric fabric;
  fabric.node_speed["node-1"] = 1e9;
  fabric.node_speed["node-6"] = 1e9;
  auto report = Isolate(Nodes(8), fabric.Probe());
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->verdict, "none") << report->summary;
}

TEST(IsolationTest, RefusesFewerThanTwoNodes) {
  Fabric fabric;
  auto report = Isolate({"node-0", "node-0"}, fabric.Probe());
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(report.status().message()),
              HasSubstr("at least 2 nodes"));
  EXPECT_EQ(fabric.collectives, 0);
}

TEST(IsolationTest, AProbeErrorEndsTheSearch) {
  Fabric fabric;
  IsolationProbe probe = fabric.Probe();
  probe.collective =
      [](const std::vector<std::string>&) -> absl::StatusOr<SetMeasurement> {
    return absl::UnavailableError("coordinator unreachable");
  };
  auto report = Isolate(Nodes(4), probe);
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.status().code(), absl::StatusCode::kUnavailable);
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::core
