// A plan's campaign block in the coordinator config: defaults, every key,
// and errors that name the line, the key and its range.
#include <string>

#include "daemon/core/coordinator_config.h"
#include "gtest/gtest.h"
#include "tests/unit/core/config_test_util.h"

namespace fabricpulse::core {
namespace {
namespace FP_UNITY_ID {

TEST(PlanCampaignTest, AbsentMeansOneSweep) {
  absl::StatusOr<CoordinatorConfig> config =
      ParseCoordinatorConfig(Yaml({"plans:", "  p: {}"}));
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_FALSE(config->plans.at("p").campaign.has_value());
}

TEST(PlanCampaignTest, EmptyBlockIsPairsWithDefaults) {
  absl::StatusOr<CoordinatorConfig> config =
      ParseCoordinatorConfig(Yaml({"plans:", "  p:", "    campaign: {}"}));
  ASSERT_TRUE(config.ok()) << config.status();
  const CampaignConfig& c = *config->plans.at("p").campaign;
  EXPECT_EQ(c, CampaignConfig{});
  EXPECT_EQ(c.grouping.kind, Grouping::kPairs);
  EXPECT_EQ(c.settings.window, absl::Hours(2));
  EXPECT_EQ(c.rules.validity, absl::Hours(24));
}

TEST(PlanCampaignTest, EveryKey) {
  absl::StatusOr<CoordinatorConfig> config = ParseCoordinatorConfig(Yaml(
      {"plans:", "  p:", "    ops: [all_gather, all_reduce]",
       "    campaign:", "      grouping: groups:4", "      group_by: rack",
       "      select: {pool: train, zone: a}", "      judge_op: all_reduce",
       "      max_concurrent_groups: 8", "      max_fleet_fraction: 0.25",
       "      window: 90m", "      busy_retry: 30s", "      warn_fraction: 0.8",
       "      critical_fraction: 0.5", "      validity: 12h",
       "      expected_busbw_gbps: 350"}));
  ASSERT_TRUE(config.ok()) << config.status();
  const CampaignConfig& c = *config->plans.at("p").campaign;
  EXPECT_EQ(c.grouping.kind, Grouping::kGroups);
  EXPECT_EQ(c.grouping.k, 4);
  EXPECT_EQ(c.grouping.group_by, "rack");
  EXPECT_EQ(c.select, (AgentLabels{{"pool", "train"}, {"zone", "a"}}));
  EXPECT_EQ(c.judge_op, "all_reduce");
  EXPECT_EQ(c.settings.max_concurrent_groups, 8);
  EXPECT_EQ(c.settings.max_fleet_fraction, 0.25);
  EXPECT_EQ(c.settings.window, absl::Minutes(90));
  EXPECT_EQ(c.settings.busy_retry, absl::Seconds(30));
  EXPECT_EQ(c.rules.thresholds.warn_fraction, 0.8);
  EXPECT_EQ(c.rules.thresholds.critical_fraction, 0.5);
  EXPECT_EQ(c.rules.validity, absl::Hours(12));
  EXPECT_EQ(c.expected_busbw_gbps, 350);
}

TEST(PlanCampaignTest, ErrorsNameLineKeyAndRange) {
  EXPECT_EQ(
      ErrorOf(
          Yaml({"plans:", "  p:", "    campaign:", "      grouping: triples"})),
      "config line 4: plans.p.campaign.grouping: 'triples' is not a "
      "grouping; allowed: node, pairs, groups:K (K from 2 to 1024), all");
  EXPECT_EQ(ErrorOf(Yaml({"plans:", "  p:", "    campaign:", "      window: 1h",
                          "      max_concurrent_groups: 0"})),
            "config line 5: plans.p.campaign.max_concurrent_groups: 0 is out "
            "of range; allowed: 1 to 4096");
  EXPECT_EQ(ErrorOf(Yaml({"plans:", "  p:", "    campaign:", "      window: 1h",
                          "      busy_retry: 2h"})),
            "config line 5: plans.p.campaign.busy_retry: 2h is out of range; "
            "allowed: more than 0s, up to the window (1h)");
  EXPECT_EQ(ErrorOf(Yaml(
                {"plans:", "  p:", "    campaign:", "      warn_fraction: 0.5",
                 "      critical_fraction: 0.6"})),
            "config line 5: plans.p.campaign.critical_fraction: 0.6 is out of "
            "range; allowed: 0 < critical_fraction <= warn_fraction (0.5) <= "
            "1 (a share of the reference busbw, e.g. 0.7)");
  EXPECT_EQ(ErrorOf(Yaml({"plans:", "  p:", "    campaign:",
                          "      expected_busbw_gbps: -1"})),
            "config line 4: plans.p.campaign.expected_busbw_gbps: -1 is out "
            "of range; allowed: 0 (judge against peers) or a busbw in GB/s up "
            "to 1000000");
  EXPECT_EQ(
      ErrorOf(Yaml({"plans:", "  p:", "    campaign:", "      tempo: fast"})),
      "config line 4: plans.p.campaign.tempo: unknown key; allowed: "
      "busy_retry, critical_fraction, expected_busbw_gbps, group_by, "
      "grouping, judge_op, max_concurrent_groups, max_fleet_fraction, "
      "select, thresholds, validity, warn_fraction, window");
}

TEST(PlanCampaignTest, LabelsAndJudgeOpAreChecked) {
  EXPECT_EQ(ErrorOf(Yaml({"plans:", "  p:", "    campaign:",
                          "      group_by: \"-rack\""})),
            "config line 4: plans.p.campaign.group_by: key '-rack' is not "
            "allowed; a label key is up to 63 characters of A-Z a-z 0-9 . _ "
            "-, starting and ending with a letter or digit");
  EXPECT_EQ(ErrorOf(Yaml({"plans:", "  p:", "    campaign:",
                          "      select: {pool: \"a b\"}"})),
            "config line 4: plans.p.campaign.select.pool: value 'a b' is not "
            "allowed; a label value is empty or up to 63 characters of A-Z a-z "
            "0-9 . _ -, starting and ending with a letter or digit");
  EXPECT_EQ(ErrorOf(Yaml({"plans:", "  p:", "    ops: [all_reduce]",
                          "    campaign:", "      judge_op: all_gather"})),
            "config line 4: plans.p.campaign.judge_op: 'all_gather' is not "
            "one of the plan's ops; allowed: all_reduce");
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::core
