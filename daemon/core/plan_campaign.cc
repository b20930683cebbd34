// The plan key campaign (campaign_config.h).
#include <cmath>

#include "absl/strings/str_cat.h"
#include "daemon/core/byte_size.h"
#include "daemon/core/campaign_config.h"
#include "daemon/core/plan_parser.h"
#include "daemon/core/range_error.h"
#include "daemon/core/status_macros.h"

namespace fabricpulse::core {

bool CampaignConfig::operator==(const CampaignConfig& o) const {
  return grouping.kind == o.grouping.kind && grouping.k == o.grouping.k &&
         grouping.group_by == o.grouping.group_by && select == o.select &&
         judge_op == o.judge_op &&
         settings.max_concurrent_groups == o.settings.max_concurrent_groups &&
         settings.max_fleet_fraction == o.settings.max_fleet_fraction &&
         settings.window == o.settings.window &&
         settings.busy_retry == o.settings.busy_retry &&
         rules.thresholds.warn_fraction == o.rules.thresholds.warn_fraction &&
         rules.thresholds.critical_fraction ==
             o.rules.thresholds.critical_fraction &&
         rules.validity == o.rules.validity &&
         expected_busbw_gbps == o.expected_busbw_gbps &&
         thresholds == o.thresholds;
}

std::string CampaignConfig::Text() const {
  std::string text = GroupingText(grouping);
  if (!grouping.group_by.empty())
    absl::StrAppend(&text, " by ", grouping.group_by);
  if (!select.empty()) absl::StrAppend(&text, ", select ", LabelsText(select));
  if (!judge_op.empty()) absl::StrAppend(&text, ", judge ", judge_op);
  absl::StrAppend(&text, ", window ", absl::FormatDuration(settings.window),
                  ", ", settings.max_concurrent_groups, " groups or ",
                  settings.max_fleet_fraction * 100,
                  " % of the nodes at once, busy retry ",
                  absl::FormatDuration(settings.busy_retry), ", warn ",
                  rules.thresholds.warn_fraction, ", critical ",
                  rules.thresholds.critical_fraction);
  if (expected_busbw_gbps > 0) {
    absl::StrAppend(&text, " of ", expected_busbw_gbps, " GB/s");
  }
  if (!thresholds.empty()) {
    absl::StrAppend(&text, ", ", thresholds.size(), " threshold(s)");
  }
  absl::StrAppend(&text, ", valid ", absl::FormatDuration(rules.validity));
  return text;
}

absl::Status CampaignConfig::Validate() const {
  if (absl::Status s = settings.Validate(); !s.ok()) return s;
  if (absl::Status s = rules.Validate(); !s.ok()) return s;
  if (!(std::isfinite(expected_busbw_gbps) && expected_busbw_gbps >= 0 &&
        expected_busbw_gbps <= 1e6)) {
    return RangeError("expected_busbw_gbps", absl::StrCat(expected_busbw_gbps),
                      "0 (judge against peers) or a busbw in GB/s up to "
                      "1000000");
  }
  if (absl::Status s = ValidateThresholds(thresholds); !s.ok()) return s;
  if (!grouping.group_by.empty()) {
    if (absl::Status s = ValidateLabelKey("group_by", grouping.group_by);
        !s.ok()) {
      return s;
    }
  }
  return ValidateLabels("select", select);
}

namespace config_internal {
namespace {

// The key a core error "<key>: ..." names, when it is one of `fields`.
const Field* FieldOf(const absl::Status& status, const Fields& fields) {
  const absl::string_view message = status.message();
  const size_t colon = message.find(':');
  if (colon == absl::string_view::npos) return nullptr;
  auto it = fields.find(std::string(message.substr(0, colon)));
  return it == fields.end() ? nullptr : &it->second;
}

absl::Status ReadSelect(const Field& field, absl::string_view path,
                        AgentLabels& select) {
  absl::StatusOr<Fields> labels = ReadMap(field.value, field.line, path, {});
  if (!labels.ok()) return labels.status();
  for (const auto& [key, value] : *labels) {
    const std::string at = JoinPath(path, key);
    if (absl::Status s = ValidateLabelKey("select", key); !s.ok()) {
      return Relabel(s, value.line, path);
    }
    absl::StatusOr<std::string> text = ReadString(value, at);
    if (!text.ok()) return text.status();
    if (absl::Status s = ValidateLabelValue("select", *text); !s.ok()) {
      return Relabel(s, value.line, at);
    }
    select[key] = *text;
  }
  return Relabel(ValidateLabels("select", select), field.line, path);
}

// One entry of `thresholds`: {op, bytes, path, gpu_model, gbps}.
absl::Status ReadThreshold(const YAML::Node& node, const std::string& at,
                           BusbwThreshold& t) {
  const int line = LineOf(node);
  absl::StatusOr<Fields> fields =
      ReadMap(node, line, at, {"op", "bytes", "path", "gpu_model", "gbps"});
  if (!fields.ok()) return fields.status();
  if (fields->count("gbps") == 0) {
    return ConfigError(line, JoinPath(at, "gbps"),
                       "required (the reference busbw in GB/s)");
  }
  for (const auto& [key, value] : *fields) {
    const std::string sub = JoinPath(at, key);
    if (key == "gbps") {
      absl::StatusOr<double> gbps = ReadDouble(value, sub);
      if (!gbps.ok()) return gbps.status();
      t.gbps = *gbps;
      continue;
    }
    absl::StatusOr<std::string> text = ReadString(value, sub);
    if (!text.ok()) return text.status();
    if (key == "bytes") {
      absl::StatusOr<uint64_t> bytes = ParseByteSize(*text, "bytes");
      if (!bytes.ok()) return Relabel(bytes.status(), value.line, sub);
      t.bytes = *bytes;
    } else {
      (key == "op" ? t.op : key == "path" ? t.path : t.gpu_model) = *text;
    }
  }
  absl::Status valid = ValidateThreshold(t);
  if (valid.ok()) return valid;
  const std::string field(valid.message().substr(0, valid.message().find(':')));
  auto it = fields->find(field);
  return Relabel(valid, it == fields->end() ? line : it->second.line,
                 JoinPath(at, field));
}

absl::Status ReadThresholds(const Field& field, const std::string& at,
                            std::vector<BusbwThreshold>& out) {
  if (!field.value.IsSequence()) {
    return ConfigError(field.line, at,
                       "a list of {op, bytes, path, gpu_model, gbps} entries");
  }
  if (field.value.size() > kMaxBusbwThresholds) {
    return ConfigError(
        field.line, at,
        absl::StrCat(field.value.size(), " entries; allowed: at most ",
                     kMaxBusbwThresholds));
  }
  for (size_t i = 0; i < field.value.size(); ++i) {
    BusbwThreshold t;
    FP_RETURN_IF_ERROR(
        ReadThreshold(field.value[i], absl::StrCat(at, "[", i, "]"), t));
    out.push_back(std::move(t));
  }
  return absl::OkStatus();
}

absl::Status ReadCampaignKey(const std::string& key, const Field& field,
                             const std::string& at, CampaignConfig& c) {
  if (key == "thresholds") return ReadThresholds(field, at, c.thresholds);
  if (key == "grouping") {
    absl::StatusOr<std::string> text = ReadString(field, at);
    if (!text.ok()) return text.status();
    absl::StatusOr<GroupingSpec> spec = ParseGrouping(*text);
    if (!spec.ok()) return Relabel(spec.status(), field.line, at);
    c.grouping.kind = spec->kind;
    c.grouping.k = spec->k;
    return absl::OkStatus();
  }
  if (key == "group_by" || key == "judge_op") {
    absl::StatusOr<std::string> text = ReadString(field, at);
    if (!text.ok()) return text.status();
    (key == "group_by" ? c.grouping.group_by : c.judge_op) = *text;
    return absl::OkStatus();
  }
  if (key == "select") return ReadSelect(field, at, c.select);
  if (key == "max_concurrent_groups") {
    return ReadIntInto(field, at, absl::StrCat("1 to ", kMaxConcurrentGroups),
                       &c.settings.max_concurrent_groups);
  }
  if (key == "window" || key == "busy_retry" || key == "validity") {
    absl::StatusOr<absl::Duration> d = ReadDuration(field, at);
    if (!d.ok()) return d.status();
    (key == "window"       ? c.settings.window
     : key == "busy_retry" ? c.settings.busy_retry
                           : c.rules.validity) = *d;
    return absl::OkStatus();
  }
  absl::StatusOr<double> value = ReadDouble(field, at);
  if (!value.ok()) return value.status();
  (key == "max_fleet_fraction"  ? c.settings.max_fleet_fraction
   : key == "warn_fraction"     ? c.rules.thresholds.warn_fraction
   : key == "critical_fraction" ? c.rules.thresholds.critical_fraction
                                : c.expected_busbw_gbps) = *value;
  return absl::OkStatus();
}

}  // namespace

absl::Status ReadCampaignField(const Field& field, absl::string_view path,
                               std::optional<CampaignConfig>& out) {
  absl::StatusOr<Fields> fields = ReadMap(
      field.value, field.line, path,
      {"grouping", "group_by", "select", "judge_op", "max_concurrent_groups",
       "max_fleet_fraction", "window", "busy_retry", "warn_fraction",
       "critical_fraction", "validity", "expected_busbw_gbps", "thresholds"});
  if (!fields.ok()) return fields.status();
  CampaignConfig campaign;
  for (const auto& [key, value] : *fields) {
    absl::Status s = ReadCampaignKey(key, value, JoinPath(path, key), campaign);
    if (!s.ok()) return s;
  }
  if (absl::Status s = campaign.Validate(); !s.ok()) {
    const Field* named = FieldOf(s, *fields);
    const std::string key(s.message().substr(0, s.message().find(':')));
    return named != nullptr ? Relabel(s, named->line, JoinPath(path, key))
                            : Relabel(s, field.line, path);
  }
  out = std::move(campaign);
  return absl::OkStatus();
}

}  // namespace config_internal
}  // namespace fabricpulse::core
