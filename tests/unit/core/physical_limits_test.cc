// The physical limits a reported busbw must stay within (issue 31, item 7):
// the sweep's slowest path, the reason a figure is rejected, and the config
// section that sets them.
#include "daemon/core/physical_limits.h"

#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "daemon/core/coordinator_config.h"
#include "gtest/gtest.h"

namespace fabricpulse::core {
namespace {
namespace FP_UNITY_ID {

RankLocation Gpu(const std::string& node, int gpu, std::vector<int> peers) {
  return RankLocation{node, gpu, std::move(peers)};
}

TEST(PhysicalLimitsTest, TheSweepsPathIsItsSlowest) {
  EXPECT_EQ(SweepPath({Gpu("a", 0, {1}), Gpu("a", 1, {0})}),
            PathClass::kNvlink);
  EXPECT_EQ(SweepPath({Gpu("a", 0, {1}), Gpu("a", 1, {0}), Gpu("a", 2, {})}),
            PathClass::kPcieShm);
  EXPECT_EQ(SweepPath({Gpu("a", 0, {1}), Gpu("b", 0, {1})}),
            PathClass::kNetwork);
  EXPECT_EQ(SweepPath({Gpu("a", -1, {}), Gpu("a", -1, {})}),
            PathClass::kPcieShm);
  EXPECT_EQ(SweepPath({Gpu("a", 0, {})}), PathClass::kPcieShm);
}

TEST(PhysicalLimitsTest, AFigureAboveTheLimitIsRejectedWithTheReason) {
  PhysicalLimits limits;
  EXPECT_EQ(BeyondPhysicalLimit(1999e9, PathClass::kNetwork, limits),
            std::nullopt);
  EXPECT_EQ(BeyondPhysicalLimit(2000e9, PathClass::kNetwork, limits),
            std::nullopt);
  EXPECT_EQ(*BeyondPhysicalLimit(6.55e13, PathClass::kNetwork, limits),
            "busbw 65500.0 GB/s is beyond the physical limit of the network "
            "path (2000 GB/s, physical_limits.network)");
  limits.nvlink_gbps = 480;
  EXPECT_TRUE(BeyondPhysicalLimit(500e9, PathClass::kNvlink, limits));
  EXPECT_FALSE(BeyondPhysicalLimit(500e9, PathClass::kPcieShm, limits));
  EXPECT_EQ(*BeyondPhysicalLimit(std::nan(""), PathClass::kNvlink, limits),
            "busbw not a number GB/s is beyond the physical limit of the "
            "nvlink path (480 GB/s, physical_limits.nvlink)");
  EXPECT_TRUE(BeyondPhysicalLimit(INFINITY, PathClass::kNetwork, limits));
}

TEST(PhysicalLimitsTest, TheConfigSetsThemPerPath) {
  absl::StatusOr<CoordinatorConfig> config = ParseCoordinatorConfig(
      "physical_limits:\n  nvlink: 480\n  network: 100\n");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->physical_limits.nvlink_gbps, 480);
  EXPECT_EQ(config->physical_limits.network_gbps, 100);
  EXPECT_EQ(config->physical_limits.pcie_shm_gbps, kDefaultPhysicalLimitGbps);
  EXPECT_EQ(ParseCoordinatorConfig("physical_limits:\n  network: 0\n")
                .status()
                .message(),
            "config line 2: physical_limits.network: 0 is out of range; "
            "allowed: more than 0, up to 1000000 (GB/s)");
  EXPECT_FALSE(ParseCoordinatorConfig("physical_limits:\n  pcie: 1\n").ok());
}

TEST(PhysicalLimitsTest, GpuModelsHaveCeilingsOfTheirOwn) {
  absl::StatusOr<CoordinatorConfig> config = ParseCoordinatorConfig(
      "physical_limits:\n"
      "  nvlink: 2000\n"
      "  by_gpu_model:\n"
      "    \"NVIDIA H200\": {nvlink: 480, pcie_shm: 64}\n"
      "    \"NVIDIA L40S\": {pcie_shm: 32}\n");
  ASSERT_TRUE(config.ok()) << config.status();
  const PhysicalLimits& limits = config->physical_limits;
  ASSERT_EQ(limits.by_gpu_model.size(), 2u);
  // A path an entry leaves out keeps the plain ceiling.
  EXPECT_EQ(limits.by_gpu_model.at("NVIDIA H200").network_gbps,
            kDefaultPhysicalLimitGbps);
  const std::set<std::string> h200 = {"NVIDIA H200"};
  // A fabricated 600 GB/s over NVLink: within the plain 2,000, not within
  // the H200's 480.
  EXPECT_FALSE(BeyondPhysicalLimit(600e9, PathClass::kNvlink, limits));
  EXPECT_EQ(*BeyondPhysicalLimit(600e9, PathClass::kNvlink, limits, h200),
            "busbw 600.0 GB/s is beyond the physical limit of the nvlink path "
            "(480 GB/s, physical_limits.by_gpu_model[NVIDIA H200].nvlink)");
  // A real 450 GB/s on H200s passes (the healthy opposite).
  EXPECT_FALSE(BeyondPhysicalLimit(450e9, PathClass::kNvlink, limits, h200));
  // Mixed models: the highest ceiling, so that no model's real figure is
  // refused; a model without an entry counts with the plain ceiling; CPU
  // ranks ("") add none.
  EXPECT_EQ(
      CeilingFor(PathClass::kPcieShm, {"NVIDIA H200", "NVIDIA L40S"}, limits)
          .gbps,
      64);
  EXPECT_EQ(
      CeilingFor(PathClass::kNvlink, {"NVIDIA H200", "NVIDIA B200"}, limits)
          .key,
      "physical_limits.nvlink");
  EXPECT_EQ(CeilingFor(PathClass::kNvlink, {""}, limits).gbps, 2000);
  // Bad entries are refused naming the key and the range.
  EXPECT_EQ(ParseCoordinatorConfig("physical_limits:\n  by_gpu_model:\n"
                                   "    \"NVIDIA H200\": {nvlink: -1}\n")
                .status()
                .message(),
            "config line 3: physical_limits.by_gpu_model[NVIDIA H200].nvlink: "
            "-1 is out of range; allowed: more than 0, up to 1000000 (GB/s)");
  EXPECT_FALSE(ParseCoordinatorConfig("physical_limits:\n  by_gpu_model:\n"
                                      "    \"NVIDIA H200\": {nvswitch: 1}\n")
                   .ok());
  EXPECT_FALSE(
      ParseCoordinatorConfig("physical_limits:\n  by_gpu_model: [1, 2]\n")
          .ok());
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::core
