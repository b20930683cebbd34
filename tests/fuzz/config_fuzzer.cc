// Fuzzes the coordinator's config parser (daemon/core/coordinator_config.h,
// plan_parser.h) with any text: it must refuse with one line naming the
// file line and the field, or return a config whose every part obeys the
// documented rules; parsing is deterministic.
#include <set>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "daemon/core/coordinator_config.h"
#include "tests/fuzz/fuzz_check.h"
#include "tests/fuzz/fuzz_targets.h"

namespace fabricpulse::fuzz {
namespace {

void CheckPlan(const std::string& key, const core::PlanConfig& plan) {
  if (plan.name != key || !core::IsValidConfigName(plan.name)) {
    Fail(absl::StrCat("plan '", key, "' accepted with a bad name"));
  }
  // The documented check: Validate at one rank, root only >= 0.
  core::SweepSpec spec = plan.spec;
  if (spec.root < 0) Fail(absl::StrCat("plan ", key, ": negative root"));
  spec.root = 0;
  const auto resolved = core::Validate(spec, 1);
  if (!resolved.ok()) {
    Fail(absl::StrCat("plan ", key, " accepted but Validate refuses it: ",
                      resolved.status().message()));
  }
  if (core::SizeSchedule(spec).size() > core::kMaxSteps) {
    Fail(absl::StrCat("plan ", key, " accepted with too many sizes"));
  }
  std::set<std::string> nodes;
  for (const std::string& node : plan.nodes) {
    if (node.empty() || !nodes.insert(node).second) {
      Fail(absl::StrCat("plan ", key, ": empty or duplicate node accepted"));
    }
  }
}

void CheckSchedules(const core::CoordinatorConfig& config) {
  std::set<std::string> names;
  for (const core::ScheduleConfig& schedule : config.schedules) {
    if (!core::IsValidConfigName(schedule.name) ||
        !names.insert(schedule.name).second) {
      Fail(absl::StrCat("schedule '", schedule.name,
                        "' accepted with a bad or duplicate name"));
    }
    if (ZoneNameIsPath(schedule.cron.time_zone_name())) {
      Fail(absl::StrCat("a zone name that is a path was accepted: ",
                        schedule.cron.time_zone_name()));
    }
    if (config.plans.count(schedule.plan) == 0) {
      Fail(absl::StrCat("schedule ", schedule.name, " names unknown plan"));
    }
    const absl::Time from = absl::FromUnixSeconds(1'800'000'000);
    const absl::Time next = schedule.cron.Next(from);
    if (next <= from) Fail("a schedule's Next() is not after its argument");
  }
}

}  // namespace

int FuzzConfig(const uint8_t* data, size_t size) {
  const std::string text = AsString(data, size);
  const auto config = core::ParseCoordinatorConfig(text);
  if (!config.ok()) {
    CheckCode(config.status(), {absl::StatusCode::kInvalidArgument},
              "ParseCoordinatorConfig");
    if (!absl::StartsWith(config.status().message(), "config line ") &&
        !absl::StartsWith(config.status().message(), "config: ")) {
      Fail(absl::StrCat("config error without its line: ",
                        config.status().message()));
    }
    if (absl::StrContains(config.status().message(), "\n")) {
      Fail(absl::StrCat("config error spans lines: ",
                        config.status().message()));
    }
    return 0;
  }
  if (config->baseline_window < 1 ||
      config->baseline_window > core::kMaxBaselineWindow ||
      config->baseline_min_sweeps < 1 ||
      config->baseline_min_sweeps > config->baseline_window ||
      !(config->regression_threshold > 0 &&
        config->regression_threshold <= 1)) {
    Fail("baseline settings accepted outside their ranges");
  }
  if (ZoneNameIsPath(config->timezone)) {
    Fail(absl::StrCat("a zone name that is a path was accepted: ",
                      config->timezone));
  }
  for (const auto& [key, plan] : config->plans) CheckPlan(key, plan);
  CheckSchedules(*config);
  const auto again = core::ParseCoordinatorConfig(text);
  if (!again.ok() || !(*again == *config)) {
    Fail("ParseCoordinatorConfig is not deterministic");
  }
  return 0;
}

}  // namespace fabricpulse::fuzz
