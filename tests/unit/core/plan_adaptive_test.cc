// A plan's iteration keys in the coordinator config: iters: auto and the
// adaptive settings, with errors that name the line and key.
#include <string>

#include "daemon/core/coordinator_config.h"
#include "gtest/gtest.h"
#include "tests/unit/core/config_test_util.h"

namespace fabricpulse::core {
namespace {
namespace FP_UNITY_ID {

TEST(PlanAdaptiveTest, ItersAutoTakesDefaults) {
  absl::StatusOr<CoordinatorConfig> config =
      ParseCoordinatorConfig(Yaml({"plans:", "  p:", "    iters: auto"}));
  ASSERT_TRUE(config.ok()) << config.status();
  const AdaptiveIters& a = config->plans.at("p").spec.adaptive;
  EXPECT_TRUE(a.enabled);
  EXPECT_EQ(a, (AdaptiveIters{true}));
}

TEST(PlanAdaptiveTest, EverySetting) {
  absl::StatusOr<CoordinatorConfig> config = ParseCoordinatorConfig(Yaml(
      {"plans:", "  p:", "    iters: auto", "    tolerance: 0.02",
       "    min_iters: 3", "    max_iters: 50", "    step_time_cap: 1.5s"}));
  ASSERT_TRUE(config.ok()) << config.status();
  const AdaptiveIters& a = config->plans.at("p").spec.adaptive;
  EXPECT_EQ(a.tolerance, 0.02);
  EXPECT_EQ(a.min_iters, 3);
  EXPECT_EQ(a.max_iters, 50);
  EXPECT_EQ(a.step_time_cap, absl::Milliseconds(1500));
}

TEST(PlanAdaptiveTest, SettingsNeedItersAuto) {
  EXPECT_EQ(ErrorOf(Yaml({"plans:", "  p:", "    iters: 20",
                          "    max_iters: 50", "    tolerance: 0.02"})),
            "config line 4: plans.p.max_iters: only with iters: auto "
            "(adaptive iteration counts); add iters: auto or remove the key");
  EXPECT_EQ(ErrorOf(Yaml({"plans:", "  p:", "    step_time_cap: 1s"})),
            "config line 3: plans.p.step_time_cap: only with iters: auto "
            "(adaptive iteration counts); add iters: auto or remove the key");
}

TEST(PlanAdaptiveTest, OutOfRangeValuesNameTheirLine) {
  EXPECT_EQ(ErrorOf(Yaml(
                {"plans:", "  p:", "    iters: auto", "    tolerance: 0.7"})),
            "config line 4: plans.p.tolerance: 0.7 is out of range; allowed: "
            "more than 0, up to 0.5 (relative: 0.01 is 1 %)");
  EXPECT_EQ(
      ErrorOf(Yaml({"plans:", "  p:", "    iters: auto", "    min_iters: 1"})),
      "config line 4: plans.p.min_iters: 1 is out of range; allowed: 2 "
      "to 1000000 (a confidence interval needs two samples)");
  EXPECT_EQ(ErrorOf(Yaml({"plans:", "  p:", "    iters: auto",
                          "    min_iters: 10", "    max_iters: 5"})),
            "config line 5: plans.p.max_iters: 5 is out of range; allowed: "
            "min_iters (10) to 1000000");
  EXPECT_EQ(ErrorOf(Yaml({"plans:", "  p:", "    iters: auto",
                          "    step_time_cap: 0s"})),
            "config line 4: plans.p.step_time_cap: 0 is out of range; "
            "allowed: more than 0s, up to 1h");
  EXPECT_EQ(ErrorOf(Yaml({"plans:", "  p:", "    iters: auto",
                          "    step_time_cap: soon"})),
            "config line 4: plans.p.step_time_cap: 'soon' is not a duration; "
            "use e.g. 60s, 1m30s or a number of seconds");
  EXPECT_EQ(ErrorOf(Yaml(
                {"plans:", "  p:", "    iters: auto", "    min_iters: many"})),
            "config line 4: plans.p.min_iters: 'many' is not a whole number");
}

TEST(PlanAdaptiveTest, GraphAndAutoAreRefusedTogether) {
  const std::string error =
      ErrorOf(Yaml({"plans:", "  p:", "    iters: auto", "    graph: true"}));
  EXPECT_EQ(error.rfind("config line 4: plans.p.graph: CUDA-graph mode "
                        "cannot run with adaptive iterations",
                        0),
            0u)
      << error;
}

TEST(PlanAdaptiveTest, ShippedNightlyIsAdaptive) {
  const CoordinatorConfig defaults = DefaultCoordinatorConfig();
  const SweepSpec& nightly = defaults.plans.at("nightly-full").spec;
  EXPECT_TRUE(nightly.adaptive.enabled);
  EXPECT_EQ(nightly.adaptive.tolerance, 0.01);
  EXPECT_EQ(nightly.adaptive.min_iters, 4);
  EXPECT_EQ(nightly.adaptive.max_iters, 8);
  EXPECT_EQ(nightly.adaptive.step_time_cap, absl::Seconds(2));
  EXPECT_FALSE(defaults.plans.at("hourly-allreduce").spec.adaptive.enabled);
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::core
