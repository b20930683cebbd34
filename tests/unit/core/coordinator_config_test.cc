#include "daemon/core/coordinator_config.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/core/config_test_util.h"

namespace fabricpulse::core {
namespace {
namespace FP_UNITY_ID {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

CronSchedule Cron(const std::string& expr, const std::string& zone) {
  return CronSchedule::Parse(expr, zone).value();
}

const std::string kGood = Yaml({
    "timezone: Europe/Berlin",  // 1
    "baseline:",
    "  window: 7",
    "  threshold: 0.8",
    "plans:",  // 5
    "  nightly-full:",
    "    ops: [all_reduce, all_gather, reduce_scatter, alltoall, broadcast, "
    "sendrecv]",
    "    min_bytes: 8",
    "    max_bytes: 1G",
    "    factor: 2",  // 10
    "    dtype: half",
    "    redop: max",
    "    root: 3",
    "    iters: 50",
    "    warmup: 2",  // 15
    "    check: false",
    "    placement: in_place",
    "    graph: true",
    "    timeout: 1m30s",
    "    nodes: [node-a, node-b]",  // 20
    "  hourly-allreduce:",
    "    ops: [all_reduce]",
    "    min_bytes: 1M",
    "    max_bytes: 256M",
    "    step_bytes: 64M",  // 25
    "    timeout: 45",
    "schedules:",
    "  - name: nightly",
    "    plan: nightly-full",
    "    cron: \"0 2 * * *\"",  // 30
    "    timezone: UTC",
    "    allow_busy_gpus: true",
    "  - name: hourly",
    "    plan: hourly-allreduce",
    "    cron: \"@hourly\"",  // 35
});

TEST(CoordinatorConfigTest, ParsesEveryField) {
  absl::StatusOr<CoordinatorConfig> config = ParseCoordinatorConfig(kGood);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->timezone, "Europe/Berlin");
  EXPECT_EQ(config->baseline_window, 7);
  EXPECT_EQ(config->regression_threshold, 0.8);
  ASSERT_EQ(config->plans.size(), 2u);

  const PlanConfig& nightly = config->plans.at("nightly-full");
  EXPECT_EQ(nightly.name, "nightly-full");
  EXPECT_THAT(nightly.spec.ops,
              ElementsAre("all_reduce", "all_gather", "reduce_scatter",
                          "alltoall", "broadcast", "sendrecv"));
  EXPECT_EQ(nightly.spec.min_bytes, 8u);
  EXPECT_EQ(nightly.spec.max_bytes, 1ull << 30);
  EXPECT_EQ(nightly.spec.factor, 2);
  EXPECT_EQ(nightly.spec.step_bytes, 0u);
  EXPECT_EQ(nightly.spec.dtype, "half");
  EXPECT_EQ(nightly.spec.redop, "max");
  EXPECT_EQ(nightly.spec.root, 3);
  EXPECT_EQ(nightly.spec.iters, 50);
  EXPECT_EQ(nightly.spec.warmup_iters, 2);
  EXPECT_FALSE(nightly.spec.check);
  EXPECT_EQ(nightly.spec.placement, "in_place");
  EXPECT_TRUE(nightly.spec.graph);
  EXPECT_EQ(nightly.spec.timeout, absl::Seconds(90));
  EXPECT_THAT(nightly.nodes, ElementsAre("node-a", "node-b"));

  const PlanConfig& hourly = config->plans.at("hourly-allreduce");
  EXPECT_THAT(hourly.spec.ops, ElementsAre("all_reduce"));
  EXPECT_EQ(hourly.spec.min_bytes, 1ull << 20);
  EXPECT_EQ(hourly.spec.max_bytes, 256ull << 20);
  EXPECT_EQ(hourly.spec.step_bytes, 64ull << 20);
  EXPECT_EQ(hourly.spec.timeout, absl::Seconds(45));
  EXPECT_THAT(hourly.nodes, IsEmpty());

  ASSERT_EQ(config->schedules.size(), 2u);
  EXPECT_EQ(config->schedules[0].name, "nightly");
  EXPECT_EQ(config->schedules[0].plan, "nightly-full");
  EXPECT_EQ(config->schedules[0].cron, Cron("0 2 * * *", "UTC"));
  EXPECT_TRUE(config->schedules[0].allow_busy_gpus);
  EXPECT_EQ(config->schedules[1].name, "hourly");
  EXPECT_EQ(config->schedules[1].cron, Cron("0 * * * *", "Europe/Berlin"));
  EXPECT_FALSE(config->schedules[1].allow_busy_gpus);
}

TEST(CoordinatorConfigTest, EmptyFileTakesDefaults) {
  for (const std::string text : {"", "# nothing here\n", "---\n"}) {
    absl::StatusOr<CoordinatorConfig> config = ParseCoordinatorConfig(text);
    ASSERT_TRUE(config.ok()) << config.status();
    EXPECT_EQ(*config, CoordinatorConfig());
    EXPECT_EQ(config->timezone, "UTC");
    EXPECT_EQ(config->baseline_window, 10);
    EXPECT_EQ(config->regression_threshold, 0.9);
    EXPECT_THAT(config->plans, IsEmpty());
    EXPECT_THAT(config->schedules, IsEmpty());
    EXPECT_EQ(config->history_max_age, absl::Hours(24 * 90));
    EXPECT_EQ(config->history_max_bytes, 1ull << 30);
    EXPECT_EQ(config->max_agents, 4096);
    EXPECT_EQ(config->forget_lost_agents_after, absl::Hours(24));
  }
}

TEST(CoordinatorConfigTest, OmittedPlanFieldsTakeSweepSpecDefaults) {
  absl::StatusOr<CoordinatorConfig> config =
      ParseCoordinatorConfig("plans:\n  quick: {}\n  small:\n    iters: 3\n");
  ASSERT_TRUE(config.ok()) << config.status();
  PlanConfig quick;
  quick.name = "quick";
  EXPECT_EQ(config->plans.at("quick"), quick);
  PlanConfig small;
  small.name = "small";
  small.spec.iters = 3;
  EXPECT_EQ(config->plans.at("small"), small);
}

TEST(CoordinatorConfigTest, ShippedFileEqualsDefault) {
  absl::StatusOr<CoordinatorConfig> config = LoadCoordinatorConfigFile(
      FABRICPULSE_SOURCE_DIR "/deploy/config/coordinator.yaml");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(*config, DefaultCoordinatorConfig());
  const CoordinatorConfig defaults = DefaultCoordinatorConfig();
  ASSERT_EQ(defaults.schedules.size(), 2u);
  EXPECT_EQ(defaults.schedules[0].cron.Next(absl::FromUnixSeconds(0)),
            absl::FromUnixSeconds(2 * 3600));
  for (const auto& [name, plan] : defaults.plans) {
    EXPECT_TRUE(Expand(plan.spec, /*nranks=*/8).ok()) << name;
  }
}

TEST(CoordinatorConfigTest, MissingFileIsNotFound) {
  absl::StatusOr<CoordinatorConfig> config =
      LoadCoordinatorConfigFile("/nonexistent/fabricpulse/coordinator.yaml");
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(config.status().message(),
            "config: cannot read '/nonexistent/fabricpulse/coordinator.yaml': "
            "No such file or directory");
  config = LoadCoordinatorConfigFile(FABRICPULSE_SOURCE_DIR "/deploy/config");
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(config.status().message()),
              ::testing::HasSubstr("Is a directory"));
}

TEST(CoordinatorConfigTest, ReportsLineAndPathOfSpecErrors) {
  EXPECT_EQ(ErrorOf(Yaml(
                {"plans:", "  p:", "    ops: [all_reduce]", "    iters: 0"})),
            "config line 4: plans.p.iters: 0 is out of range; allowed: 1 to "
            "1000000");
  // Two bad fields: the first in the file is reported.
  EXPECT_EQ(ErrorOf(Yaml({"plans:", "  p:", "    timeout: x", "    dtype: y"})),
            "config line 3: plans.p.timeout: 'x' is not a duration; use e.g. "
            "60s, 1m30s or a number of seconds");
  EXPECT_EQ(ErrorOf(Yaml({"plans:", "  p:", "    warmup: -1"})),
            "config line 3: plans.p.warmup: -1 is out of range; allowed: 0 "
            "to 100000");
  EXPECT_EQ(ErrorOf(Yaml({"plans:", "  p:", "    iters: 99999999999"})),
            "config line 3: plans.p.iters: 99999999999 is out of range; "
            "allowed: 1 to 1000000, or auto");
  EXPECT_EQ(ErrorOf(Yaml({"plans:", "  p:", "    min_bytes: 1G"})),
            "config line 3: plans.p.min_bytes: 1G is greater than max_bytes "
            "32M; allowed: min_bytes <= max_bytes");
  EXPECT_EQ(ErrorOf(Yaml({"plans:", "  p:", "    min_bytes: 12Q"})),
            "config line 3: plans.p.min_bytes: '12Q' is not a byte size; use "
            "a whole number with an optional K, M or G suffix (e.g. 8, 64K, "
            "1M, 2G)");
  EXPECT_EQ(ErrorOf(Yaml({"plans:", "  p:", "    ops:", "      - all_reduce",
                          "      - all_reduse"})),
            "config line 5: plans.p.ops[1]: unknown op 'all_reduse'; allowed: "
            "all_reduce, all_gather, reduce_scatter, broadcast, reduce, "
            "alltoall, sendrecv, gather, scatter, pairwise, moe_dispatch, "
            "moe_combine, moe_combine_weighted");
  EXPECT_EQ(ErrorOf(Yaml({"plans:", "  p:", "    ops: []"})),
            "config line 3: plans.p.ops: empty; allowed: one or more of "
            "all_reduce, all_gather, reduce_scatter, broadcast, reduce, "
            "alltoall, sendrecv, gather, scatter, pairwise, moe_dispatch, "
            "moe_combine, moe_combine_weighted");
  EXPECT_THAT(ErrorOf(Yaml({"plans:", "  p:", "    dtype: float33"})),
              ::testing::StartsWith(
                  "config line 3: plans.p.dtype: unknown type 'float33'"));
  EXPECT_THAT(ErrorOf(Yaml({"plans:", "  p:", "    placement: sideways"})),
              ::testing::StartsWith("config line 3: plans.p.placement: "
                                    "unknown placement 'sideways'"));
  EXPECT_EQ(ErrorOf(Yaml({"plans:", "  p:", "    factor: 1"})),
            "config line 3: plans.p.factor: 1 is out of range; allowed: 2 to "
            "1024 (or give step_bytes > 0 for an arithmetic schedule)");
  EXPECT_EQ(
      ErrorOf(Yaml({"plans:", "  p:", "    factor: 2", "    step_bytes: 1M"})),
      "config line 4: plans.p.step_bytes: give factor or step_bytes, "
      "not both");
  EXPECT_EQ(ErrorOf(Yaml({"plans:", "  p:", "    root: -1"})),
            "config line 3: plans.p.root: -1 is out of range; allowed: 0 or "
            "more (and less than the sweep's rank count, checked when it "
            "runs)");
  EXPECT_EQ(ErrorOf(Yaml({"plans:", "  p:", "    timeout: soon"})),
            "config line 3: plans.p.timeout: 'soon' is not a duration; use "
            "e.g. 60s, 1m30s or a number of seconds");
  EXPECT_EQ(ErrorOf(Yaml({"plans:", "  p:", "    timeout: 2h"})),
            "config line 3: plans.p.timeout: 2h is out of range; allowed: "
            "more than 0s, up to 1h");
  EXPECT_EQ(ErrorOf(Yaml({"plans:", "  p:", "    check: maybe"})),
            "config line 3: plans.p.check: 'maybe' is not true or false");
  EXPECT_EQ(ErrorOf(Yaml({"plans:", "  p:", "    iters: many"})),
            "config line 3: plans.p.iters: 'many' is not a whole number or "
            "auto");
  EXPECT_EQ(ErrorOf(Yaml({"plans:", "  p:", "    nodes: [a, b, a]"})),
            "config line 3: plans.p.nodes[2]: duplicate node 'a'");
  EXPECT_EQ(ErrorOf(Yaml({"plans:", "  p:", "    nodes: a"})),
            "config line 3: plans.p.nodes: expected a list such as [a, b], "
            "got 'a'");
  EXPECT_EQ(ErrorOf(Yaml({"plans:", "  p:", "    min_bytes: 1",
                          "    max_bytes: 1G", "    step_bytes: 1K"})),
            "config line 2: plans.p: min_bytes..max_bytes gives more than "
            "4096 sizes; raise factor or step_bytes, or narrow the range");
}

TEST(CoordinatorConfigTest, MaxBytesAuto) {
  absl::StatusOr<CoordinatorConfig> config = ParseCoordinatorConfig(
      Yaml({"plans:", "  a:", "    max_bytes: auto",
            "  b:", "    max_bytes: auto:0.5", "    min_bytes: 1G", "  c:",
            "    max_bytes: AUTO:1", "    min_bytes: 1", "    step_bytes: 1"}));
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->plans.at("a").spec.max_bytes_auto.fraction, 0.25);
  // min_bytes above the default max_bytes: auto ignores max_bytes.
  EXPECT_EQ(config->plans.at("b").spec.max_bytes_auto.fraction, 0.5);
  EXPECT_EQ(config->plans.at("b").spec.min_bytes, 1ull << 30);
  // An arithmetic schedule's size count is known only once resolved.
  EXPECT_EQ(config->plans.at("c").spec.max_bytes_auto.fraction, 1);
  for (const char* bad : {"auto:0", "auto:1.5", "auto:x"}) {
    EXPECT_EQ(ErrorOf(Yaml({"plans:", "  p:", "    ops: [all_reduce]",
                            absl::StrCat("    max_bytes: ", bad)})),
              absl::StrCat("config line 4: plans.p.max_bytes: '", bad,
                           "': FRACTION must be a number with 0 < FRACTION "
                           "<= 1; allowed: auto (FRACTION 0.25), "
                           "auto:FRACTION (e.g. auto:0.5) or a byte size "
                           "such as 1G"));
  }
  EXPECT_THAT(ErrorOf(Yaml({"plans:", "  p:", "    max_bytes: lots"})),
              ::testing::HasSubstr("or auto[:FRACTION]"));
}

TEST(CoordinatorConfigTest, RejectsUnknownAndDuplicateKeys) {
  EXPECT_EQ(ErrorOf(Yaml({"timezone: UTC", "timezon: UTC"})),
            "config line 2: timezon: unknown key; allowed: agents, baseline, "
            "history, link_expectations, physical_limits, plans, schedules, "
            "timezone");
  EXPECT_EQ(ErrorOf(Yaml({"plans:", "  p:", "    iters: 3", "    iter: 3"})),
            "config line 4: plans.p.iter: unknown key; allowed: campaign, "
            "check, dtype, "
            "factor, fresh_comm, graph, isolate_on, iters, max_bytes, "
            "max_iters, min_bytes, min_iters, moe_dtype, moe_experts, "
            "moe_hidden, moe_preset, moe_seed, moe_skew, moe_tokens, moe_topk, "
            "nodes, ops, "
            "placement, redop, root, step_bytes, step_time_cap, timeout, "
            "tolerance, warmup");
  EXPECT_EQ(ErrorOf(Yaml({"baseline:", "  window: 5", "  window: 6"})),
            "config line 3: baseline.window: duplicate key (first at line 2)");
  EXPECT_EQ(ErrorOf(Yaml({"plans:", "  p: {}", "  q: {}", "  p: {}"})),
            "config line 4: plans.p: duplicate key (first at line 2)");
  EXPECT_EQ(ErrorOf(Yaml({"schedules:", "  - name: a", "    plan: p",
                          "    cron: '* * * * *'", "    crn: x"})),
            "config line 5: schedules[0].crn: unknown key; allowed: "
            "allow_busy_gpus, cron, name, plan, timezone");
}

TEST(CoordinatorConfigTest, IsolateOn) {
  auto config = ParseCoordinatorConfig(
      Yaml({"plans:", "  both:", "    isolate_on: [regression, failure]",
            "  one:", "    isolate_on: [failure]",
            "  off:", "    isolate_on: []", "  omitted: {}"}));
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->plans.at("both").isolate_on,
            (IsolateOn{.regression = true, .failure = true}));
  EXPECT_EQ(config->plans.at("one").isolate_on, (IsolateOn{.failure = true}));
  EXPECT_FALSE(config->plans.at("off").isolate_on.any());
  EXPECT_FALSE(config->plans.at("omitted").isolate_on.any());
  EXPECT_EQ(IsolateOnText(config->plans.at("both").isolate_on),
            "regression, failure");
  EXPECT_EQ(IsolateOnText(config->plans.at("one").isolate_on), "failure");
  EXPECT_EQ(IsolateOnText(config->plans.at("off").isolate_on), "off");
  // Not equal once isolate_on differs.
  EXPECT_FALSE(config->plans.at("off") == config->plans.at("one"));

  EXPECT_EQ(ErrorOf(Yaml({"plans:", "  p:", "    isolate_on: [regresion]"})),
            "config line 3: plans.p.isolate_on[0]: unknown value "
            "'regresion'; allowed: a list of regression, failure (each at "
            "most once); [] = off");
  EXPECT_EQ(ErrorOf(Yaml({"plans:", "  p:", "    isolate_on: regression"})),
            "config line 3: plans.p.isolate_on: expected a list such as "
            "[regression, failure]; allowed: a list of regression, failure "
            "(each at most once); [] = off");
  EXPECT_EQ(
      ErrorOf(Yaml({"plans:", "  p:", "    isolate_on: [failure, failure]"})),
      "config line 3: plans.p.isolate_on[1]: duplicate value failure; "
      "allowed: a list of regression, failure (each at most once); "
      "[] = off");
  EXPECT_EQ(ErrorOf(Yaml({"plans:", "  p:", "    isolate_on:"})).substr(0, 48),
            "config line 3: plans.p.isolate_on: expected a li");
}

TEST(CoordinatorConfigTest, BaselineMinSweeps) {
  EXPECT_EQ(CoordinatorConfig().baseline_min_sweeps, 5);
  auto config = ParseCoordinatorConfig(
      Yaml({"baseline:", "  min_sweeps: 3", "  window: 4"}));
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->baseline_min_sweeps, 3);
  EXPECT_EQ(config->baseline_window, 4);
  // Omitted: 5, or a smaller window.
  config = ParseCoordinatorConfig(Yaml({"baseline:", "  window: 3"}));
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->baseline_min_sweeps, 3);
  config = ParseCoordinatorConfig(Yaml({"baseline:", "  threshold: 0.5"}));
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->baseline_min_sweeps, 5);
  EXPECT_EQ(ErrorOf(Yaml({"baseline:", "  min_sweeps: 0"})),
            "config line 2: baseline.min_sweeps: 0 is out of range; allowed: "
            "1 to baseline.window (10)");
  EXPECT_EQ(ErrorOf(Yaml({"baseline:", "  window: 4", "  min_sweeps: 5"})),
            "config line 3: baseline.min_sweeps: 5 is out of range; allowed: "
            "1 to baseline.window (4)");
  EXPECT_EQ(ErrorOf(Yaml({"baseline:", "  min_sweeps: x"})).substr(0, 45),
            "config line 2: baseline.min_sweeps: 'x' is no");
}

TEST(CoordinatorConfigTest, RejectsBadTopLevelValues) {
  EXPECT_EQ(ErrorOf("- a\n- b\n"),
            "config line 1: the file must be a map of top-level keys, got a "
            "list");
  EXPECT_EQ(ErrorOf(Yaml({"# zone", "timezone: Mars/Base"})),
            "config line 2: timezone: unknown zone 'Mars/Base'; use an IANA "
            "zone name such as UTC or Europe/Berlin");
  EXPECT_EQ(ErrorOf(Yaml({"baseline:", "  window: 0"})),
            "config line 2: baseline.window: 0 is out of range; allowed: 1 to "
            "1000");
  EXPECT_EQ(ErrorOf(Yaml({"baseline:", "  threshold: 1.5"})),
            "config line 2: baseline.threshold: 1.5 is out of range; allowed: "
            "more than 0, up to 1");
  EXPECT_EQ(ErrorOf(Yaml({"baseline:", "  threshold: 0"})),
            "config line 2: baseline.threshold: 0 is out of range; allowed: "
            "more than 0, up to 1");
  EXPECT_EQ(ErrorOf(Yaml({"plans:", "  Nightly: {}"})),
            "config line 2: plans.Nightly: invalid plan name; use 1 to 63 "
            "lowercase letters, digits, '_' or '-', starting with a letter or "
            "digit");
  EXPECT_EQ(ErrorOf(Yaml({"plans:", "  p:"})),
            "config line 2: plans.p: has no fields; write {} for a plan with "
            "all defaults");
  EXPECT_EQ(ErrorOf(Yaml({"plans: [a]"})),
            "config line 1: plans: expected a map of keys, got a list");
  EXPECT_EQ(ErrorOf(Yaml({"schedules:", "  name: a"})),
            "config line 1: schedules: expected a list of schedules (lines "
            "starting '- ')");
  EXPECT_EQ(ErrorOf(Yaml({"plans:", "  p: {}", "  q: [oops"})),
            "config line 3: invalid YAML: end of sequence flow not found");
}

const char* const kPlans[] = {
    "plans:",  // 1
    "  nightly-full: {}",
    "  hourly-allreduce: {}",
    "schedules:",
    "  - name: nightly",  // 5
    "    plan: nightly-full",
    "    cron: \"0 2 * * *\"",
};

std::string WithPlans(std::initializer_list<absl::string_view> more) {
  std::vector<absl::string_view> lines(std::begin(kPlans), std::end(kPlans));
  lines.insert(lines.end(), more.begin(), more.end());
  return absl::StrJoin(lines, "\n");
}

TEST(CoordinatorConfigTest, ReportsScheduleErrors) {
  EXPECT_EQ(ErrorOf(WithPlans({})), "OK");
  EXPECT_EQ(ErrorOf(WithPlans({"  - name: hourly", "    plan: nightly-ful",
                               "    cron: \"@hourly\""})),
            "config line 9: schedules[1].plan: unknown plan 'nightly-ful'; "
            "defined: hourly-allreduce, nightly-full");
  EXPECT_EQ(ErrorOf(WithPlans({"  - name: nightly", "    plan: nightly-full",
                               "    cron: \"@hourly\""})),
            "config line 8: schedules[1].name: duplicate schedule name "
            "'nightly' (first at line 5)");
  EXPECT_EQ(ErrorOf(WithPlans({"  - name: bad", "    plan: nightly-full",
                               "    cron: \"61 * * * *\""})),
            "config line 10: schedules[1].cron: minute field '61' is out of "
            "range 0-59");
  EXPECT_EQ(ErrorOf(WithPlans({"  - name: bad", "    plan: nightly-full",
                               "    cron: \"* * * *\""})),
            "config line 10: schedules[1].cron: expected 5 fields, got 4 "
            "(minute hour day-of-month month day-of-week)");
  EXPECT_EQ(
      ErrorOf(WithPlans({"  - name: bad", "    plan: nightly-full",
                         "    cron: \"@daily\"", "    timezone: Mars/Base"})),
      "config line 11: schedules[1].timezone: unknown zone 'Mars/Base'; "
      "use an IANA zone name such as UTC or Europe/Berlin");
  EXPECT_EQ(ErrorOf(WithPlans({"  - name: bad", "    cron: \"@daily\""})),
            "config line 8: schedules[1]: missing required key 'plan'");
  EXPECT_EQ(ErrorOf(WithPlans({"  - name: Bad!", "    plan: nightly-full",
                               "    cron: \"@daily\""})),
            "config line 8: schedules[1].name: invalid schedule name 'Bad!'; "
            "use 1 to 63 lowercase letters, digits, '_' or '-', starting "
            "with a letter or digit");
  EXPECT_EQ(ErrorOf(WithPlans({"  - name: busy", "    plan: nightly-full",
                               "    cron: \"@daily\"",
                               "    allow_busy_gpus: perhaps"})),
            "config line 11: schedules[1].allow_busy_gpus: 'perhaps' is not "
            "true or false");
  EXPECT_EQ(ErrorOf(Yaml({"schedules:", "  - name: a", "    plan: p",
                          "    cron: '@daily'"})),
            "config line 3: schedules[0].plan: unknown plan 'p'; defined: "
            "none");
}

TEST(CoordinatorConfigTest, SchedulesMayComeBeforePlans) {
  absl::StatusOr<CoordinatorConfig> config = ParseCoordinatorConfig(
      Yaml({"schedules:", "  - {name: a, plan: p, cron: '@daily'}",
            "plans:", "  p: {}", "timezone: America/New_York"}));
  ASSERT_TRUE(config.ok()) << config.status();
  ASSERT_EQ(config->schedules.size(), 1u);
  EXPECT_EQ(config->schedules[0].cron, Cron("0 0 * * *", "America/New_York"));
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::core

namespace fabricpulse::core {
namespace {
namespace FP_UNITY_ID {

TEST(CoordinatorConfigTest, HistoryAndAgentBounds) {
  absl::StatusOr<CoordinatorConfig> config = ParseCoordinatorConfig(
      Yaml({"history:", "  max_age: 30d", "  max_bytes: 256M",
            "agents:", "  max: 100", "  forget_lost_after: 36h"}));
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->history_max_age, absl::Hours(24 * 30));
  EXPECT_EQ(config->history_max_bytes, 256ull << 20);
  EXPECT_EQ(config->max_agents, 100);
  EXPECT_EQ(config->forget_lost_agents_after, absl::Hours(36));
  config = ParseCoordinatorConfig(
      Yaml({"history:", "  max_age: 1h30m", "agents:", "  max: 16384"}));
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->history_max_age, absl::Minutes(90));
  EXPECT_EQ(config->history_max_bytes, 1ull << 30);
  EXPECT_EQ(config->max_agents, 16384);
}

TEST(CoordinatorConfigTest, RejectsHistoryAndAgentValuesOutOfRange) {
  EXPECT_EQ(ErrorOf(Yaml({"history:", "  max_age: 10m"})),
            "config line 2: history.max_age: 10m is out of range; allowed: "
            "1h to 36500d");
  EXPECT_EQ(ErrorOf(Yaml({"history:", "  max_age: soon"})),
            "config line 2: history.max_age: 'soon' is not a duration; use "
            "e.g. 90d, 36h or 1h30m");
  EXPECT_EQ(ErrorOf(Yaml({"history:", "  max_age: -3d"})),
            "config line 2: history.max_age: '-3d' is not a duration; use "
            "e.g. 90d, 36h or 1h30m");
  EXPECT_EQ(ErrorOf(Yaml({"history:", "  max_bytes: 1K"})),
            "config line 2: history.max_bytes: 1K is out of range; allowed: "
            "1M to 1T");
  EXPECT_EQ(
      ErrorOf(Yaml({"history:", "  max_bytes: lots"})),
      "config line 2: history.max_bytes: 'lots' is not a byte size; use "
      "a whole number with an optional K, M or G suffix (e.g. 8, 64K, 1M, "
      "2G)");
  EXPECT_EQ(ErrorOf(Yaml({"history:", "  keep: all"})),
            "config line 2: history.keep: unknown key; allowed: max_age, "
            "max_bytes");
  EXPECT_EQ(ErrorOf(Yaml({"agents:", "  max: 0"})),
            "config line 2: agents.max: 0 is out of range; allowed: 1 to "
            "16384");
  EXPECT_EQ(ErrorOf(Yaml({"agents:", "  max: 16385"})),
            "config line 2: agents.max: 16385 is out of range; allowed: 1 to "
            "16384");
  EXPECT_EQ(ErrorOf(Yaml({"agents:", "  forget_lost_after: 1s"})),
            "config line 2: agents.forget_lost_after: 1s is out of range; "
            "allowed: 1m to 365d");
}

TEST(CoordinatorConfigTest, PlanBoundsAndNodeNames) {
  EXPECT_EQ(ErrorOf(Yaml({"plans:", "  p:", "    nodes: [\"a\\nb\"]"})),
            "config line 3: plans.p.nodes[0]: 'a\\nb' has a character that "
            "is not allowed at byte 1 (\\n); allowed: 1 to 253 of A-Z a-z "
            "0-9 . _ -, starting with a letter or digit");
  std::string ops = "    ops: [";
  for (int i = 0; i < 33; ++i) ops += i == 0 ? "all_reduce" : ", all_reduce";
  ops += "]";
  EXPECT_EQ(ErrorOf(Yaml({"plans:", "  p:", ops})),
            "config line 3: plans.p.ops: 33 entries; allowed: 1 to 32 (each "
            "op once)");
  EXPECT_EQ(
      ErrorOf(
          Yaml({"plans:", "  p:", "    ops: [" + std::string(100, 'x') + "]"})),
      "config line 3: plans.p.ops[0]: unknown op "
      "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...' (100 bytes); allowed: "
      "all_reduce, all_gather, reduce_scatter, broadcast, reduce, "
      "alltoall, sendrecv, gather, scatter, pairwise, moe_dispatch, "
      "moe_combine, moe_combine_weighted");
  EXPECT_EQ(ErrorOf(Yaml({"plans:", "  p:", "    timeout: nan"})),
            "config line 3: plans.p.timeout: inf is out of range; allowed: "
            "more than 0s, up to 1h");
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::core

namespace fabricpulse::core {
namespace {
namespace FP_UNITY_ID {

// A plan's MoE keys set the shape of its moe ops; bad values name the key
// and its line; a top-k beyond one rank's experts is fine in a plan (the
// rank count is checked when it runs).
TEST(CoordinatorConfigMoeTest, PlanKeysSetTheShape) {
  absl::StatusOr<CoordinatorConfig> config = ParseCoordinatorConfig(
      "plans:\n"
      "  moe:\n"
      "    ops: [moe_dispatch, moe_combine]\n"
      "    moe_tokens: 1024\n"
      "    moe_hidden: 4096\n"
      "    moe_topk: 16\n"
      "    moe_experts: 4\n"
      "    moe_skew: 0.5\n"
      "    moe_seed: 7\n"
      "    moe_dtype: fp8_e4m3\n");
  ASSERT_TRUE(config.ok()) << config.status();
  const MoeShape& moe = config->plans.at("moe").spec.moe;
  EXPECT_EQ(moe.tokens, 1024);
  EXPECT_EQ(moe.hidden, 4096);
  EXPECT_EQ(moe.topk, 16);
  EXPECT_EQ(moe.experts_per_rank, 4);
  EXPECT_EQ(moe.skew, 0.5);
  EXPECT_EQ(moe.seed, 7u);
  EXPECT_EQ(moe.dtype, "fp8_e4m3");
  absl::StatusOr<CoordinatorConfig> bad = ParseCoordinatorConfig(
      "plans:\n"
      "  moe:\n"
      "    ops: [moe_dispatch]\n"
      "    moe_skew: 9\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "config line 4: plans.moe.moe_skew: 9 is out of range; allowed: 0 "
            "to 4");
}

// A plan's moe_preset: DeepEP's shape under the plan's own moe keys (in
// any order); an unknown preset names the key, its line and the presets.
TEST(CoordinatorConfigMoeTest, PlanPresetUnderExplicitKeys) {
  absl::StatusOr<CoordinatorConfig> config = ParseCoordinatorConfig(
      "plans:\n"
      "  ll:\n"
      "    ops: [moe_dispatch, moe_combine_weighted]\n"
      "    moe_tokens: 32\n"
      "    moe_preset: deepep-ll\n"
      "    moe_hidden: 256\n");
  ASSERT_TRUE(config.ok()) << config.status();
  const MoeShape& moe = config->plans.at("ll").spec.moe;
  EXPECT_EQ(moe.preset, "deepep-ll");
  EXPECT_EQ(moe.tokens, 32);
  EXPECT_EQ(moe.hidden, 256);
  EXPECT_EQ(moe.experts_total, 288);
  EXPECT_EQ(moe.masked, 10);
  EXPECT_EQ(moe.dtype, "fp8_e4m3");
  absl::StatusOr<CoordinatorConfig> bad = ParseCoordinatorConfig(
      "plans:\n"
      "  moe:\n"
      "    ops: [moe_dispatch]\n"
      "    moe_preset: deepep\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "config line 4: plans.moe.moe_preset: 'deepep' is not a preset; "
            "allowed: deepep-ll, deepep-normal");
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::core
