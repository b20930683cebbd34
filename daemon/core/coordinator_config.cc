#include "daemon/core/coordinator_config.h"

#include <algorithm>
#include <map>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "daemon/core/bounded_file.h"
#include "daemon/core/config_sections.h"
#include "daemon/core/name_rules.h"
#include "daemon/core/plan_parser.h"
#include "yaml-cpp/eventhandler.h"
#include "yaml-cpp/yaml.h"

namespace fabricpulse::core {
namespace {

using config_internal::ConfigError;
using config_internal::Field;
using config_internal::Fields;
using config_internal::JoinPath;
using config_internal::ReadMap;
using config_internal::Relabel;

bool SpecsEqual(const SweepSpec& a, const SweepSpec& b) {
  return a.ops == b.ops && a.min_bytes == b.min_bytes &&
         a.max_bytes == b.max_bytes && a.factor == b.factor &&
         a.step_bytes == b.step_bytes && a.dtype == b.dtype &&
         a.redop == b.redop && a.root == b.root &&
         a.warmup_iters == b.warmup_iters && a.iters == b.iters &&
         a.check == b.check && a.placement == b.placement &&
         a.graph == b.graph && a.timeout == b.timeout &&
         a.fresh_comm == b.fresh_comm && a.adaptive == b.adaptive;
}

absl::Status CheckZone(const std::string& zone, int line,
                       absl::string_view path) {
  absl::TimeZone tz;
  if (!IsValidTimeZoneName(zone) || !absl::LoadTimeZone(zone, &tz)) {
    return ConfigError(line, path,
                       absl::StrCat("unknown zone ", QuotePrefix(zone),
                                    "; use an IANA zone name such as UTC or "
                                    "Europe/Berlin"));
  }
  return absl::OkStatus();
}

absl::Status ParseBaseline(const Field& field, CoordinatorConfig& config) {
  absl::StatusOr<Fields> fields =
      ReadMap(field.value, field.line, "baseline",
              {"window", "min_sweeps", "threshold"});
  if (!fields.ok()) return fields.status();
  if (auto it = fields->find("window"); it != fields->end()) {
    absl::StatusOr<int64_t> window =
        config_internal::ReadInt(it->second, "baseline.window");
    if (!window.ok()) return window.status();
    if (*window < 1 || *window > kMaxBaselineWindow) {
      return ConfigError(it->second.line, "baseline.window",
                         absl::StrCat(*window,
                                      " is out of range; allowed: 1 "
                                      "to ",
                                      kMaxBaselineWindow));
    }
    config.baseline_window = static_cast<int>(*window);
  }
  // Omitted, it is the default or, for a smaller window, the window.
  config.baseline_min_sweeps =
      std::min(kDefaultBaselineMinSweeps, config.baseline_window);
  // After the window, whatever the order in the file: it bounds min_sweeps.
  if (auto it = fields->find("min_sweeps"); it != fields->end()) {
    absl::StatusOr<int64_t> min_sweeps =
        config_internal::ReadInt(it->second, "baseline.min_sweeps");
    if (!min_sweeps.ok()) return min_sweeps.status();
    if (*min_sweeps < 1 || *min_sweeps > config.baseline_window) {
      return ConfigError(
          it->second.line, "baseline.min_sweeps",
          absl::StrCat(*min_sweeps,
                       " is out of range; allowed: 1 to baseline.window (",
                       config.baseline_window, ")"));
    }
    config.baseline_min_sweeps = static_cast<int>(*min_sweeps);
  }
  if (auto it = fields->find("threshold"); it != fields->end()) {
    absl::StatusOr<double> threshold =
        config_internal::ReadDouble(it->second, "baseline.threshold");
    if (!threshold.ok()) return threshold.status();
    if (!(*threshold > 0 && *threshold <= 1)) {
      return ConfigError(it->second.line, "baseline.threshold",
                         absl::StrCat(*threshold,
                                      " is out of range; allowed: more than "
                                      "0, up to 1"));
    }
    config.regression_threshold = *threshold;
  }
  return absl::OkStatus();
}

absl::Status ParsePlans(const Field& field, CoordinatorConfig& config) {
  // Plan names are free-form keys: no allowed list, but ReadMap's duplicate
  // check still applies.
  absl::StatusOr<Fields> plans =
      ReadMap(field.value, field.line, "plans", /*allowed=*/{});
  if (!plans.ok()) return plans.status();
  for (const auto& [name, plan_field] : *plans) {
    absl::StatusOr<PlanConfig> plan =
        config_internal::ParsePlan(name, plan_field);
    if (!plan.ok()) return plan.status();
    config.plans.emplace(name, *std::move(plan));
  }
  return absl::OkStatus();
}

absl::StatusOr<ScheduleConfig> ParseSchedule(const YAML::Node& node, int line,
                                             const std::string& path,
                                             const CoordinatorConfig& config) {
  absl::StatusOr<Fields> fields =
      ReadMap(node, line, path,
              {"name", "plan", "cron", "timezone", "allow_busy_gpus"});
  if (!fields.ok()) return fields.status();
  for (absl::string_view required : {"name", "plan", "cron"}) {
    if (fields->count(std::string(required)) == 0) {
      return ConfigError(line, path,
                         absl::StrCat("missing required key '", required, "'"));
    }
  }
  ScheduleConfig schedule;
  const Field& name = fields->at("name");
  absl::StatusOr<std::string> text =
      config_internal::ReadString(name, JoinPath(path, "name"));
  if (!text.ok()) return text.status();
  schedule.name = *text;
  if (!IsValidConfigName(schedule.name)) {
    return ConfigError(
        name.line, JoinPath(path, "name"),
        absl::StrCat("invalid schedule name ", QuotePrefix(schedule.name),
                     "; use 1 to 63 lowercase letters, "
                     "digits, '_' or '-', starting with a "
                     "letter or digit"));
  }
  const Field& plan = fields->at("plan");
  text = config_internal::ReadString(plan, JoinPath(path, "plan"));
  if (!text.ok()) return text.status();
  schedule.plan = *text;
  if (config.plans.count(schedule.plan) == 0) {
    std::vector<std::string> defined;
    for (const auto& [plan_name, unused] : config.plans) {
      defined.push_back(plan_name);
    }
    return ConfigError(
        plan.line, JoinPath(path, "plan"),
        absl::StrCat("unknown plan ", QuotePrefix(schedule.plan), "; defined: ",
                     defined.empty() ? "none" : absl::StrJoin(defined, ", ")));
  }
  std::string zone = config.timezone;
  if (auto it = fields->find("timezone"); it != fields->end()) {
    text = config_internal::ReadString(it->second, JoinPath(path, "timezone"));
    if (!text.ok()) return text.status();
    zone = *text;
    absl::Status status =
        CheckZone(zone, it->second.line, JoinPath(path, "timezone"));
    if (!status.ok()) return status;
  }
  const Field& cron = fields->at("cron");
  text = config_internal::ReadString(cron, JoinPath(path, "cron"));
  if (!text.ok()) return text.status();
  absl::StatusOr<CronSchedule> parsed = CronSchedule::Parse(*text, zone);
  if (!parsed.ok()) {
    return Relabel(parsed.status(), cron.line, JoinPath(path, "cron"));
  }
  schedule.cron = *std::move(parsed);
  if (auto it = fields->find("allow_busy_gpus"); it != fields->end()) {
    absl::StatusOr<bool> allow = config_internal::ReadBool(
        it->second, JoinPath(path, "allow_busy_gpus"));
    if (!allow.ok()) return allow.status();
    schedule.allow_busy_gpus = *allow;
  }
  return schedule;
}

absl::Status ParseSchedules(const Field& field, CoordinatorConfig& config) {
  if (!field.value.IsSequence()) {
    return ConfigError(field.line, "schedules",
                       "expected a list of schedules (lines starting '- ')");
  }
  std::map<std::string, int> first_line;
  for (size_t i = 0; i < field.value.size(); ++i) {
    const YAML::Node node = field.value[i];
    const int line = config_internal::LineOf(node) > 0
                         ? config_internal::LineOf(node)
                         : field.line;
    const std::string path = absl::StrCat("schedules[", i, "]");
    absl::StatusOr<ScheduleConfig> schedule =
        ParseSchedule(node, line, path, config);
    if (!schedule.ok()) return schedule.status();
    const auto [it, inserted] = first_line.emplace(schedule->name, line);
    if (!inserted) {
      return ConfigError(
          line, JoinPath(path, "name"),
          absl::StrCat("duplicate schedule name ", QuotePrefix(schedule->name),
                       " (first at line ", it->second, ")"));
    }
    config.schedules.push_back(*std::move(schedule));
  }
  return absl::OkStatus();
}

// Records where each document starts; builds nothing.
class DocumentStarts final : public YAML::EventHandler {
 public:
  std::vector<YAML::Mark> starts;

  void OnDocumentStart(const YAML::Mark& mark) override {
    starts.push_back(mark);
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

// OK when `text` holds at most one YAML document. yaml-cpp 0.7's LoadAll
// never returns on some inputs (a lone ","): from there on every call of
// HandleNextDocument yields an empty document at the same place without
// consuming anything. So this looks at two documents at most, and a second
// one that starts where the first did is that stuck place. Throws what
// yaml-cpp throws on a syntax error.
absl::Status CheckOneDocument(const std::string& text) {
  std::istringstream stream(text);
  YAML::Parser parser(stream);
  DocumentStarts handler;
  while (handler.starts.size() < 2 && parser.HandleNextDocument(handler)) {
  }
  if (handler.starts.size() < 2) return absl::OkStatus();
  const YAML::Mark& first = handler.starts[0];
  const YAML::Mark& second = handler.starts[1];
  if (second.pos == first.pos) {
    const size_t pos = static_cast<size_t>(second.pos);
    return ConfigError(
        second.line + 1, "",
        absl::StrCat("invalid YAML: unexpected ",
                     pos < text.size()
                         ? absl::StrCat("'", text.substr(pos, 1), "'")
                         : "end of file",
                     " at column ", second.column + 1));
  }
  return ConfigError(second.line + 1, "",
                     "expected one YAML document, got more than one");
}

absl::StatusOr<CoordinatorConfig> ParseDocument(const YAML::Node& root) {
  CoordinatorConfig config;
  if (root.IsNull()) return config;  // an empty file
  absl::StatusOr<Fields> fields =
      ReadMap(root, config_internal::LineOf(root), "",
              {"timezone", "baseline", "history", "agents", "physical_limits",
               "link_expectations", "plans", "schedules"});
  if (!fields.ok()) return fields.status();
  if (auto it = fields->find("timezone"); it != fields->end()) {
    absl::StatusOr<std::string> zone =
        config_internal::ReadString(it->second, "timezone");
    if (!zone.ok()) return zone.status();
    absl::Status status = CheckZone(*zone, it->second.line, "timezone");
    if (!status.ok()) return status;
    config.timezone = *zone;
  }
  // Plans before schedules, whatever the order in the file.
  for (const auto& [key, parse] :
       {std::pair{"baseline", &ParseBaseline},
        std::pair{"history", &config_internal::ParseHistory},
        std::pair{"agents", &config_internal::ParseAgents},
        std::pair{"physical_limits", &config_internal::ParsePhysicalLimits},
        std::pair{"link_expectations", &config_internal::ParseLinkExpectations},
        std::pair{"plans", &ParsePlans},
        std::pair{"schedules", &ParseSchedules}}) {
    if (auto it = fields->find(key); it != fields->end()) {
      absl::Status status = parse(it->second, config);
      if (!status.ok()) return status;
    }
  }
  return config;
}

}  // namespace

bool operator==(const PlanConfig& a, const PlanConfig& b) {
  return a.name == b.name && SpecsEqual(a.spec, b.spec) && a.nodes == b.nodes &&
         a.isolate_on == b.isolate_on && a.campaign == b.campaign;
}

bool operator==(const ScheduleConfig& a, const ScheduleConfig& b) {
  return a.name == b.name && a.plan == b.plan && a.cron == b.cron &&
         a.allow_busy_gpus == b.allow_busy_gpus;
}

bool operator==(const CoordinatorConfig& a, const CoordinatorConfig& b) {
  return a.timezone == b.timezone && a.baseline_window == b.baseline_window &&
         a.baseline_min_sweeps == b.baseline_min_sweeps &&
         a.regression_threshold == b.regression_threshold &&
         a.history_max_age == b.history_max_age &&
         a.history_max_bytes == b.history_max_bytes &&
         a.max_agents == b.max_agents &&
         a.forget_lost_agents_after == b.forget_lost_agents_after &&
         a.physical_limits == b.physical_limits &&
         a.link_expectations == b.link_expectations && a.plans == b.plans &&
         a.schedules == b.schedules;
}

bool IsValidConfigName(absl::string_view name) {
  if (name.empty() || name.size() > 63) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (!alnum && (i == 0 || (c != '_' && c != '-'))) return false;
  }
  return true;
}

absl::StatusOr<CoordinatorConfig> ParseCoordinatorConfig(
    absl::string_view yaml_text) {
  // yaml-cpp reports errors by throwing; this is the one place they turn
  // into a Status.
  try {
    const std::string text(yaml_text);
    if (absl::Status one = CheckOneDocument(text); !one.ok()) return one;
    return ParseDocument(YAML::Load(text));
  } catch (const YAML::Exception& e) {
    return ConfigError(e.mark.is_null() ? 0 : e.mark.line + 1, "",
                       absl::StrCat("invalid YAML: ", e.msg));
  }
}

absl::StatusOr<CoordinatorConfig> LoadCoordinatorConfigFile(
    const std::string& path) {
  // A regular file of bounded size, read without blocking (a FIFO or
  // /dev/zero is refused at once; see bounded_file.h).
  auto text = ReadBoundedFile(path, kMaxConfigFileBytes, "config");
  if (!text.ok()) return text.status();
  return ParseCoordinatorConfig(*text);
}

CoordinatorConfig DefaultCoordinatorConfig() {
  CoordinatorConfig config;
  PlanConfig nightly;
  nightly.name = "nightly-full";
  nightly.spec.ops = {"all_reduce", "all_gather", "reduce_scatter",
                      "alltoall",   "broadcast",  "sendrecv"};
  nightly.spec.min_bytes = 8;
  nightly.spec.max_bytes = 1ull << 30;
  nightly.spec.factor = 2;
  nightly.spec.timeout = absl::Seconds(60);
  // The shipped file's iters: auto, min_iters: 4, max_iters: 8.
  nightly.spec.adaptive.enabled = true;
  nightly.spec.adaptive.min_iters = 4;
  nightly.spec.adaptive.max_iters = 8;
  // The shipped file's campaign: pairs across racks, 2 h window.
  nightly.campaign.emplace();
  nightly.campaign->grouping.group_by = "rack";
  config.plans.emplace(nightly.name, nightly);

  PlanConfig hourly;
  hourly.name = "hourly-allreduce";
  hourly.spec.ops = {"all_reduce"};
  hourly.spec.min_bytes = 1ull << 20;
  hourly.spec.max_bytes = 256ull << 20;
  hourly.spec.factor = 4;
  config.plans.emplace(hourly.name, hourly);

  // Both expressions are constants: a parse failure is a programming error.
  ScheduleConfig nightly_schedule;
  nightly_schedule.name = "nightly";
  nightly_schedule.plan = nightly.name;
  nightly_schedule.cron = CronSchedule::Parse("0 2 * * *", "UTC").value();
  config.schedules.push_back(nightly_schedule);

  ScheduleConfig hourly_schedule;
  hourly_schedule.name = "hourly";
  hourly_schedule.plan = hourly.name;
  hourly_schedule.cron = CronSchedule::Parse("30 * * * *", "UTC").value();
  config.schedules.push_back(hourly_schedule);
  return config;
}

}  // namespace fabricpulse::core
