// The agent's GPU facts over this machine's real NVML (libnvidia-ml.so.1
// of the driver): every GPU has a model and a PCI bus id, and NVLink peers
// are other GPUs of the machine. Skipped without an NVIDIA driver.
#include <regex>
#include <set>
#include <vector>

#include "daemon/agent/gpu_topology.h"
#include "gtest/gtest.h"

namespace fabricpulse::agent {
namespace {

TEST(GpuTopologyGpuTest, RealNvmlReportsModelBusAndPeers) {
  auto nvml = nvml::OpenNvml();
  if (!nvml.ok()) GTEST_SKIP() << nvml.status();
  auto count = (*nvml)->DeviceCount();
  ASSERT_TRUE(count.ok()) << count.status();
  if (*count == 0) GTEST_SKIP() << "no GPU";
  std::vector<int> gpus;
  for (int i = 0; i < *count; ++i) gpus.push_back(i);
  const auto facts = ReadGpuFacts(**nvml, gpus);
  ASSERT_EQ(facts.size(), gpus.size());
  const std::regex bus("[0-9A-Fa-f]{8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\\.[0-7]");
  std::set<std::string> buses;
  for (const auto& [gpu, f] : facts) {
    RecordProperty("gpu" + std::to_string(gpu), f.model + " " + f.pci_bus_id);
    EXPECT_FALSE(f.model.empty()) << "GPU " << gpu;
    EXPECT_TRUE(std::regex_match(f.pci_bus_id, bus))
        << "GPU " << gpu << ": '" << f.pci_bus_id << "'";
    EXPECT_TRUE(buses.insert(f.pci_bus_id).second) << f.pci_bus_id;
    for (int peer : f.nvlink_peers) {
      EXPECT_NE(peer, gpu);
      EXPECT_GE(peer, 0);
      EXPECT_LT(peer, *count);
    }
    auto remotes = (*nvml)->NvLinkRemoteBusIds(gpu);
    ASSERT_TRUE(remotes.ok()) << remotes.status();
    std::printf("GPU %d: %s, bus %s, %zu active NVLink(s), peers:", gpu,
                f.model.c_str(), f.pci_bus_id.c_str(), remotes->size());
    for (int peer : f.nvlink_peers) std::printf(" %d", peer);
    std::printf("\n");
  }
}

}  // namespace
}  // namespace fabricpulse::agent
