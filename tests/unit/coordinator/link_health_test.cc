// LinksBelowPeers (issue 29, item 4): a GPU with NVLinks down or a machine
// with a NIC down or slow is named against its peers of the same GPU
// model; a healthy fleet, a fleet whose figures vary within their spread
// and a fleet too small to compare name nobody.
#include "daemon/coordinator/link_health.h"

#include <optional>
#include <random>

#include "absl/strings/str_cat.h"
#include "daemon/core/coordinator_config.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fabricpulse::coordinator {
namespace {
namespace FP_UNITY_ID {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

v1::AgentInfo Node(const std::string& name, int gpus, int links,
                   const std::string& model = "NVIDIA H200") {
  v1::AgentInfo a;
  a.set_node_name(name);
  a.set_state("alive");
  for (int g = 0; g < gpus; ++g) {
    v1::WorkerInfo* w = a.add_workers();
    w->set_local_index(g);
    w->set_gpu(g);
    w->set_gpu_model(model);
    w->set_nvlink_active_links(links);
  }
  for (const char* name : {"ib0", "ib1"}) {
    v1::NicInfo* nic = a.add_nics();
    nic->set_name(name);
    nic->set_kind("infiniband");
    nic->set_state("up");
    nic->set_speed_bits_per_second(400'000'000'000);
  }
  return a;
}

std::vector<v1::AgentInfo> Fleet(int nodes) {
  std::vector<v1::AgentInfo> fleet;
  for (int i = 0; i < nodes; ++i) {
    fleet.push_back(Node(absl::StrCat("node-", i), 8, 18));
  }
  return fleet;
}

TEST(LinkHealthTest, AHealthyFleetNamesNobody) {
  EXPECT_THAT(LinksBelowPeers(Fleet(16)), IsEmpty());
}

TEST(LinkHealthTest, AGpuWithNvlinksDownIsNamedAlone) {
  std::vector<v1::AgentInfo> fleet = Fleet(4);
  fleet[2].mutable_workers(3)->set_nvlink_active_links(12);
  const auto below = LinksBelowPeers(fleet);
  ASSERT_EQ(below.size(), 1u);
  EXPECT_THAT(below.at("node-2"),
              ElementsAre("gpu 3 (NVIDIA H200): 12 NVLinks active, the "
                          "model's median 18 over 32 GPUs of 4 nodes"));
}

TEST(LinkHealthTest, ANicDownOrSlowIsNamed) {
  std::vector<v1::AgentInfo> fleet = Fleet(6);
  fleet[1].mutable_nics(1)->set_state("down");
  fleet[1].mutable_nics(1)->clear_speed_bits_per_second();
  fleet[3].mutable_nics(0)->set_speed_bits_per_second(200'000'000'000);
  const auto below = LinksBelowPeers(fleet);
  ASSERT_EQ(below.size(), 2u);
  EXPECT_THAT(below.at("node-1"),
              ElementsAre("nics: 400 Gb/s up (ib1 down), the median of 6 "
                          "nodes with NVIDIA H200 800 Gb/s"));
  EXPECT_THAT(below.at("node-3"),
              ElementsAre("nics: 600 Gb/s up, the median of 6 nodes with "
                          "NVIDIA H200 800 Gb/s"));
}

TEST(LinkHealthTest, PeersAreOfTheSameGpuModel) {
  // Two models side by side: the PCIe model's 0 NVLinks are its normal.
  std::vector<v1::AgentInfo> fleet = Fleet(3);
  for (int i = 0; i < 3; ++i) {
    fleet.push_back(Node(absl::StrCat("pcie-", i), 8, 0, "NVIDIA L40S"));
  }
  EXPECT_THAT(LinksBelowPeers(fleet), IsEmpty());
  fleet[0].mutable_workers(0)->set_nvlink_active_links(0);
  const auto below = LinksBelowPeers(fleet);
  ASSERT_EQ(below.size(), 1u);
  EXPECT_EQ(below.count("node-0"), 1u);
}

TEST(LinkHealthTest,
     FiguresThatVaryAmongHealthyPeersAreJudgedBeyondTheirSpread) {
  // NVLink counts of 16 to 18 among healthy nodes (median 17, spread 1.48):
  // 15 is within 3 spreads, 12 is not.
  std::vector<v1::AgentInfo> fleet;
  for (int i = 0; i < 6; ++i) {
    fleet.push_back(Node(absl::StrCat("node-", i), 1, 16 + i % 3));
  }
  fleet.push_back(Node("low", 1, 15));
  EXPECT_THAT(LinksBelowPeers(fleet), IsEmpty());
  fleet.back().mutable_workers(0)->set_nvlink_active_links(12);
  EXPECT_EQ(LinksBelowPeers(fleet).count("low"), 1u);
}

TEST(LinkHealthTest, TooFewPeersLostAgentsAndUnknownFiguresAreNotJudged) {
  // Two nodes: which one is low cannot be told.
  std::vector<v1::AgentInfo> two = Fleet(2);
  two[0].mutable_workers(0)->set_nvlink_active_links(0);
  two[0].mutable_nics(0)->set_state("down");
  EXPECT_THAT(LinksBelowPeers(two), IsEmpty());
  // A lost agent is neither judged nor a peer.
  std::vector<v1::AgentInfo> lost = Fleet(3);
  lost[0].mutable_workers(0)->set_nvlink_active_links(0);
  lost[0].set_state("lost");
  EXPECT_THAT(LinksBelowPeers(lost), IsEmpty());
  lost[0].set_state("alive");
  EXPECT_EQ(LinksBelowPeers(lost).count("node-0"), 1u);
  // NVML could not say (absent), no NICs listed, a CPU-only fleet: nothing.
  std::vector<v1::AgentInfo> unknown = Fleet(3);
  unknown[1].mutable_workers(5)->clear_nvlink_active_links();
  unknown[2].clear_nics();
  EXPECT_THAT(LinksBelowPeers(unknown), IsEmpty());
  std::vector<v1::AgentInfo> cpus;
  for (int i = 0; i < 4; ++i) {
    v1::AgentInfo a;
    a.set_node_name(absl::StrCat("cpu-", i));
    a.set_state("alive");
    a.add_workers()->set_gpu(-1);
    cpus.push_back(a);
  }
  EXPECT_THAT(LinksBelowPeers(cpus), IsEmpty());
}

// A configured expectation (link_expectations) judges a model's nodes
// without peers: one node alone is judged, and at the expectation is fine.
TEST(LinkHealthTest, AConfiguredExpectationJudgesWithoutPeers) {
  std::vector<v1::AgentInfo> one = {Node("node-0", 8, 18)};
  core::LinkExpectations expect;
  expect["NVIDIA H200"] = {18, 800};
  EXPECT_THAT(LinksBelowPeers(one, expect), IsEmpty());
  one[0].mutable_workers(5)->set_nvlink_active_links(16);
  one[0].mutable_nics(0)->set_state("down");
  const auto below = LinksBelowPeers(one, expect);
  ASSERT_EQ(below.size(), 1u);
  EXPECT_THAT(below.at("node-0"),
              ElementsAre("gpu 5 (NVIDIA H200): 16 NVLinks active, expected "
                          "18 (link_expectations)",
                          "nics: 400 Gb/s up (ib0 down), expected 800 Gb/s "
                          "(link_expectations)"));
  // Another model, or a figure the expectation leaves out: peers judge.
  core::LinkExpectations other;
  other["NVIDIA B200"] = {18, 800};
  EXPECT_THAT(LinksBelowPeers(one, other), IsEmpty());
  core::LinkExpectations nvlinks_only;
  nvlinks_only["NVIDIA H200"] = {18, std::nullopt};
  EXPECT_THAT(LinksBelowPeers(one, nvlinks_only).at("node-0"),
              ElementsAre("gpu 5 (NVIDIA H200): 16 NVLinks active, expected "
                          "18 (link_expectations)"));
}

TEST(LinkHealthTest, TheConfigTakesExpectationsPerModel) {
  absl::StatusOr<core::CoordinatorConfig> config = core::ParseCoordinatorConfig(
      "link_expectations:\n"
      "  \"NVIDIA H200\": {nvlinks: 18, nics_gbit: 3200}\n"
      "  \"NVIDIA L40S\": {nics_gbit: 400}\n");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->link_expectations.at("NVIDIA H200"),
            (core::LinkExpectation{18, 3200}));
  EXPECT_EQ(config->link_expectations.at("NVIDIA L40S"),
            (core::LinkExpectation{std::nullopt, 400}));
  EXPECT_EQ(core::ParseCoordinatorConfig(
                "link_expectations:\n  \"NVIDIA H200\": {nvlinks: 99}\n")
                .status()
                .message(),
            "config line 2: link_expectations[NVIDIA H200].nvlinks: 99 is out "
            "of range; allowed: 0 to 64");
  EXPECT_FALSE(core::ParseCoordinatorConfig(
                   "link_expectations:\n  \"NVIDIA H200\": {links: 18}\n")
                   .ok());
  EXPECT_FALSE(core::ParseCoordinatorConfig(
                   "link_expectations:\n  \"NVIDIA H200\": {nics_gbit: 0}\n")
                   .ok());
}

// The rule's false alarms on a healthy fleet whose reports are noisy in the
// ways facts are: NVML failing to answer for a GPU (unknown), an agent
// listing no NICs, mixed models, fleets of 3 to 64 nodes. 2,000 fleets:
// no node is ever named (recorded as false_alarms).
TEST(LinkHealthTest, FalseAlarmsOnHealthyFleetsWithMissingFiguresAreNone) {
  std::mt19937 rng(29);
  int named = 0;
  int64_t judged_nodes = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    const int nodes = 3 + static_cast<int>(rng() % 62);
    std::vector<v1::AgentInfo> fleet;
    for (int i = 0; i < nodes; ++i) {
      const bool pcie = rng() % 4 == 0;
      v1::AgentInfo a = Node(absl::StrCat("node-", i), 8, pcie ? 0 : 18,
                             pcie ? "NVIDIA L40S" : "NVIDIA H200");
      for (v1::WorkerInfo& w : *a.mutable_workers()) {
        if (rng() % 20 == 0) w.clear_nvlink_active_links();
      }
      if (rng() % 20 == 0) a.clear_nics();
      fleet.push_back(a);
    }
    judged_nodes += nodes;
    named += static_cast<int>(LinksBelowPeers(fleet).size());
  }
  ::testing::Test::RecordProperty("false_alarms", named);
  ::testing::Test::RecordProperty("nodes", static_cast<int>(judged_nodes));
  EXPECT_EQ(named, 0);
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::coordinator
