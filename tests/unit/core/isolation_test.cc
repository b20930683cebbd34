#include "daemon/core/isolation.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fabricpulse::core {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A simulated fabric: every node and link at 10 GB/s unless slowed; a set's
// collective runs at its slowest link (a ring crosses them all in turn), a
// failing node fails every set it is in.
struct Fabric {
  std::map<std::string, double> node_speed;
  std::map<std::pair<std::string, std::string>, double> link_speed;
  std::set<std::string> failing;
  int collectives = 0;
  int pairwise_checks = 0;

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
                             : Link(nodes[i], nodes[j])});
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

// O(log n): the whole set, two halves a round, one pairwise check.
int MaxCollectives(int n) {
  return 1 + 2 * static_cast<int>(std::ceil(std::log2(n)));
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
      EXPECT_EQ(fabric.pairwise_checks, 1);
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
    // Ordinary spread: within 30 %.
    fabric.node_speed["node-1"] = 8e9;
    auto report = Isolate(Nodes(n), fabric.Probe());
    ASSERT_TRUE(report.ok()) << report.status();
    EXPECT_EQ(report->verdict, "none") << report->summary;
    EXPECT_TRUE(report->culprits.empty());
  }
}

TEST(IsolationTest, ThreeNodesGoStraightToThePairwiseCheck) {
  Fabric fabric;
  fabric.node_speed["node-2"] = 1e9;
  auto report = Isolate(Nodes(3), fabric.Probe());
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->verdict, "node") << report->summary;
  EXPECT_THAT(report->culprits, ElementsAre("node-2"));
  EXPECT_EQ(fabric.collectives, 1);
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

}  // namespace
}  // namespace fabricpulse::core
