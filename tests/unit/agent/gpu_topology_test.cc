#include "daemon/agent/gpu_topology.h"

#include <memory>

#include "daemon/core/topology_limits.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/fakes/fake_nvml.h"

namespace fabricpulse::agent {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

const std::vector<std::string> kBus = {"00000000:18:00.0", "00000000:2A:00.0",
                                       "00000000:3A:00.0", "00000000:5D:00.0"};

TEST(NvlinkPeersTest, DirectLinksNameTheGpuAtTheFarEndBothWays) {
  // 0 - 1 (two links), 2 - 3 (one, reported by 3 only, lower case).
  const auto peers = NvlinkPeers(
      kBus, {{kBus[1], kBus[1]}, {kBus[0], kBus[0]}, {}, {"00000000:3a:00.0"}});
  EXPECT_THAT(peers[0], ElementsAre(1));
  EXPECT_THAT(peers[1], ElementsAre(0));
  EXPECT_THAT(peers[2], ElementsAre(3));
  EXPECT_THAT(peers[3], ElementsAre(2));
}

TEST(NvlinkPeersTest, SwitchedGpusReachEveryOtherSwitchedGpu) {
  // 0, 1, 3 link to NVSwitches (bus ids of no local GPU); 2 has no NVLink.
  const std::string sw1 = "00000000:C1:00.0", sw2 = "00000000:C2:00.0";
  const auto peers = NvlinkPeers(kBus, {{sw1, sw2}, {sw2}, {}, {sw1, sw1}});
  EXPECT_THAT(peers[0], ElementsAre(1, 3));
  EXPECT_THAT(peers[1], ElementsAre(0, 3));
  EXPECT_THAT(peers[2], IsEmpty());
  EXPECT_THAT(peers[3], ElementsAre(0, 1));
}

TEST(NvlinkPeersTest, NeverItselfAndAnUnknownBusIdMatchesNobody) {
  // A loop-back link, and a GPU whose own bus id NVML did not give.
  const auto peers = NvlinkPeers({kBus[0], ""}, {{kBus[0]}, {kBus[0]}});
  EXPECT_THAT(peers[0], ElementsAre(1));
  EXPECT_THAT(peers[1], ElementsAre(0));
}

TEST(NvlinkPeersTest, BoundedPerGpu) {
  std::vector<std::string> bus;
  std::vector<std::vector<std::string>> links;
  for (int i = 0; i < 100; ++i) {
    bus.push_back(absl::StrCat("00000000:", i, ":00.0"));
    links.push_back({"switch"});
  }
  const auto peers = NvlinkPeers(bus, links);
  EXPECT_EQ(peers[5].size(), core::kMaxNvlinkPeersPerGpu);
}

TEST(GpuFactsTest, ReadsModelBusAndPeersOfTheAgentsGpus) {
  fakes::FakeNvml nvml;
  nvml.SetDeviceCount(3);
  nvml.SetTopology(0,
                   {"NVIDIA H200", kBus[0], std::vector<std::string>{kBus[2]}});
  nvml.SetTopology(1, {absl::UnavailableError("no name"), kBus[1],
                       absl::UnavailableError("NVML broke")});
  // GPU 2 is not the agent's but is GPU 0's peer.
  nvml.SetTopology(2,
                   {"NVIDIA H200", kBus[2], std::vector<std::string>{kBus[0]}});
  const auto facts = ReadGpuFacts(nvml, {0, 1, -1});
  ASSERT_EQ(facts.size(), 2u);
  EXPECT_EQ(facts.at(0).model, "NVIDIA H200");
  EXPECT_EQ(facts.at(0).pci_bus_id, kBus[0]);
  EXPECT_THAT(facts.at(0).nvlink_peers, ElementsAre(2));
  EXPECT_EQ(facts.at(1).model, "");  // NVML could not say
  EXPECT_EQ(facts.at(1).pci_bus_id, kBus[1]);
  EXPECT_THAT(facts.at(1).nvlink_peers, IsEmpty());

  v1::AgentInfo info;
  for (int gpu : {0, 1, -1}) info.add_workers()->set_gpu(gpu);
  AnnotateGpuFacts(facts, info);
  EXPECT_EQ(info.workers(0).gpu_model(), "NVIDIA H200");
  EXPECT_THAT(info.workers(0).nvlink_peers(), ElementsAre(2));
  EXPECT_EQ(info.workers(1).pci_bus_id(), kBus[1]);
  // A CPU rank keeps every field empty.
  EXPECT_EQ(info.workers(2).gpu_model(), "");
  EXPECT_EQ(info.workers(2).pci_bus_id(), "");
  EXPECT_THAT(info.workers(2).nvlink_peers(), IsEmpty());
}

TEST(GpuFactsTest, NothingWithoutAGpuRankOrWhenNvmlCannotCount) {
  fakes::FakeNvml nvml;
  nvml.SetDeviceCount(2);
  EXPECT_TRUE(ReadGpuFacts(nvml, {-1, -1}).empty());
  nvml.SetDeviceCount(absl::UnavailableError("driver gone"));
  EXPECT_TRUE(ReadGpuFacts(nvml, {0}).empty());
}

}  // namespace
}  // namespace fabricpulse::agent
