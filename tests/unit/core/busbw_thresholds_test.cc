// Absolute busbw references of a campaign (issue 28, item 4): which entry
// matches a judged step (the most specific, the first on a tie), their
// checks, and the config's `thresholds` list.
#include "daemon/core/busbw_thresholds.h"

#include "daemon/core/coordinator_config.h"
#include "gtest/gtest.h"

namespace fabricpulse::core {
namespace {
namespace FP_UNITY_ID {

TEST(BusbwThresholdsTest, TheMostSpecificMatchingEntryWins) {
  const std::vector<BusbwThreshold> t = {
      {"all_reduce", 0, "", "", 10},                          // 0
      {"all_reduce", 1 << 30, "network", "", 45},             // 1
      {"all_reduce", 1 << 30, "nvlink", "NVIDIA H200", 360},  // 2
      {"all_reduce", 1 << 30, "network", "", 50},             // 3: a tie, later
      {"", 0, "", "", 1},                                     // 4: any step
  };
  EXPECT_EQ(
      MatchThreshold(t, {"all_reduce", 1 << 30, "network", "NVIDIA H200"}), 1);
  EXPECT_EQ(MatchThreshold(t, {"all_reduce", 1 << 30, "nvlink", "NVIDIA H200"}),
            2);
  EXPECT_EQ(MatchThreshold(t, {"all_reduce", 1 << 30, "nvlink", "NVIDIA B200"}),
            0);
  EXPECT_EQ(MatchThreshold(t, {"all_reduce", 1 << 20, "network", ""}), 0);
  EXPECT_EQ(MatchThreshold(t, {"all_gather", 1 << 30, "network", ""}), 4);
  EXPECT_EQ(MatchThreshold({t[1]}, {"all_gather", 1 << 30, "network", ""}), -1);
  EXPECT_EQ(MatchThreshold({}, {"all_reduce", 1, "network", ""}), -1);
  EXPECT_EQ(DescribeThreshold(t[2]),
            "all_reduce 1 GiB nvlink NVIDIA H200: 360 GB/s");
  EXPECT_EQ(DescribeThreshold(t[4]), "any step: 1 GB/s");
}

TEST(BusbwThresholdsTest, EntriesAreCheckedNamingTheKey) {
  EXPECT_TRUE(ValidateThreshold({"all_reduce", 0, "network", "", 45}).ok());
  EXPECT_EQ(
      ValidateThreshold({"all_sum", 0, "", "", 45}).message().substr(0, 29),
      "op: 'all_sum' is not an op; a");
  EXPECT_EQ(ValidateThreshold({"", 0, "rdma", "", 45}).message(),
            "path: 'rdma' is not a path; allowed: nvlink, pcie_shm, network");
  EXPECT_EQ(ValidateThreshold({"", 0, "", "", 0}).message(),
            "gbps: 0 is out of range; allowed: more than 0, up to 1000000 "
            "(GB/s)");
  std::vector<BusbwThreshold> many(kMaxBusbwThresholds + 1,
                                   BusbwThreshold{"", 0, "", "", 1});
  EXPECT_FALSE(ValidateThresholds(many).ok());
}

TEST(BusbwThresholdsTest, ACampaignPlanTakesThemFromTheConfig) {
  const std::string head =
      "plans:\n"
      "  fleet:\n"
      "    ops: [all_reduce]\n"
      "    campaign:\n"
      "      thresholds:\n";
  absl::StatusOr<CoordinatorConfig> config = ParseCoordinatorConfig(
      head +
      "        - {op: all_reduce, bytes: 1G, path: network, gbps: 45}\n"
      "        - {path: nvlink, gpu_model: \"NVIDIA H200\", gbps: 360}\n");
  ASSERT_TRUE(config.ok()) << config.status();
  const auto& thresholds = config->plans.at("fleet").campaign->thresholds;
  ASSERT_EQ(thresholds.size(), 2u);
  EXPECT_EQ(thresholds[0],
            (BusbwThreshold{"all_reduce", 1ull << 30, "network", "", 45}));
  EXPECT_EQ(thresholds[1],
            (BusbwThreshold{"", 0, "nvlink", "NVIDIA H200", 360}));
  EXPECT_EQ(ParseCoordinatorConfig(head + "        - {path: rdma, gbps: 1}\n")
                .status()
                .message(),
            "config line 6: plans.fleet.campaign.thresholds[0].path: 'rdma' is "
            "not a path; allowed: nvlink, pcie_shm, network");
  EXPECT_EQ(ParseCoordinatorConfig(head + "        - {op: all_reduce}\n")
                .status()
                .message(),
            "config line 6: plans.fleet.campaign.thresholds[0].gbps: required "
            "(the reference busbw in GB/s)");
  EXPECT_FALSE(
      ParseCoordinatorConfig(head + "        - {bytes: huge, gbps: 1}\n").ok());
  EXPECT_FALSE(ParseCoordinatorConfig(head + "        {gbps: 1}\n").ok());
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::core
