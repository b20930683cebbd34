#include "daemon/core/plan_parser.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <optional>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "daemon/core/auto_max_bytes.h"
#include "daemon/core/byte_size.h"
#include "daemon/core/dtype.h"
#include "daemon/core/duration_text.h"
#include "daemon/core/limits.h"
#include "daemon/core/moe_preset.h"
#include "daemon/core/name_rules.h"
#include "daemon/core/op_traits.h"
#include "daemon/core/redop.h"

namespace fabricpulse::core::config_internal {
namespace {

std::string Describe(const YAML::Node& node) {
  if (node.IsNull()) return "nothing";
  if (node.IsSequence()) return "a list";
  if (node.IsMap()) return "a map";
  return QuotePrefix(node.Scalar());
}

absl::StatusOr<std::string> ReadScalar(const Field& field,
                                       absl::string_view path,
                                       absl::string_view expected) {
  if (!field.value.IsScalar()) {
    return ConfigError(
        field.line, path,
        absl::StrCat("expected ", expected, ", got ", Describe(field.value)));
  }
  return field.value.Scalar();
}

absl::Status ReadByteSizeInto(const Field& field, absl::string_view path,
                              uint64_t* out) {
  absl::StatusOr<std::string> text =
      ReadScalar(field, path, "a byte size such as 8, 64K, 1M or 2G");
  if (!text.ok()) return text.status();
  absl::StatusOr<uint64_t> bytes = ParseByteSize(*text, "bytes");
  if (!bytes.ok()) return Relabel(bytes.status(), field.line, path);
  *out = *bytes;
  return absl::OkStatus();
}

// A byte size, "auto" or "auto:FRACTION" (auto_max_bytes.h).
absl::Status ReadMaxBytesInto(const Field& field, absl::string_view path,
                              SweepSpec& spec) {
  absl::StatusOr<std::string> text =
      ReadScalar(field, path, "a byte size such as 1G, or auto[:FRACTION]");
  if (!text.ok()) return text.status();
  absl::StatusOr<MaxBytesChoice> choice = ParseMaxBytes(*text, "bytes");
  if (!choice.ok()) return Relabel(choice.status(), field.line, path);
  SetMaxBytes(*choice, spec);
  return absl::OkStatus();
}

// Parses the fields of one plan into `plan` (everything but Validate).
absl::Status ReadPlanFields(const Fields& fields, const std::string& path,
                            PlanConfig& plan) {
  SweepSpec& spec = plan.spec;
  // In file order, so that the first bad line is the one reported. Sort
  // pointers: assigning a YAML::Node rewrites the node it refers to.
  std::vector<const Fields::value_type*> ordered;
  for (const auto& entry : fields) ordered.push_back(&entry);
  std::stable_sort(ordered.begin(), ordered.end(),
                   [](const auto* a, const auto* b) {
                     return a->second.line < b->second.line;
                   });
  for (const Fields::value_type* entry : ordered) {
    const std::string& key = entry->first;
    const Field& field = entry->second;
    const std::string sub = JoinPath(path, key);
    absl::Status status;
    if (key == "ops") {
      absl::StatusOr<std::vector<ListItem>> ops = ReadStringList(field, sub);
      if (!ops.ok()) return ops.status();
      if (ops->size() > kMaxOpsPerSpec) {
        return ConfigError(field.line, sub,
                           absl::StrCat(ops->size(), " entries; allowed: 1 to ",
                                        kMaxOpsPerSpec, " (each op once)"));
      }
      spec.ops.clear();
      for (size_t i = 0; i < ops->size(); ++i) {
        const ListItem& item = (*ops)[i];
        absl::StatusOr<Op> op = ParseOp(item.value);
        if (!op.ok()) {
          return Relabel(op.status(), item.line,
                         absl::StrCat(sub, "[", i, "]"));
        }
        spec.ops.push_back(item.value);
      }
    } else if (key == "min_bytes") {
      status = ReadByteSizeInto(field, sub, &spec.min_bytes);
    } else if (key == "max_bytes") {
      status = ReadMaxBytesInto(field, sub, spec);
    } else if (key == "step_bytes") {
      status = ReadByteSizeInto(field, sub, &spec.step_bytes);
    } else if (key == "factor") {
      absl::StatusOr<double> factor = ReadDouble(field, sub);
      if (!factor.ok()) return factor.status();
      spec.factor = *factor;
    } else if (key == "dtype" || key == "redop" || key == "placement") {
      absl::StatusOr<std::string> name = ReadString(field, sub);
      if (!name.ok()) return name.status();
      if (key == "dtype") {
        status = ParseDType(*name).status();
        spec.dtype = *name;
      } else if (key == "redop") {
        status = ParseRedOp(*name).status();
        spec.redop = *name;
      } else {
        status = ParsePlacement(*name).status();
        spec.placement = *name;
      }
      status = Relabel(status, field.line, sub);
    } else if (key == "root") {
      status = ReadIntInto(field, sub, "0 or more", &spec.root);
      if (status.ok() && spec.root < 0) {
        status = ConfigError(field.line, sub,
                             absl::StrCat(spec.root,
                                          " is out of range; allowed: 0 or "
                                          "more (and less than the sweep's "
                                          "rank count, checked when it runs)"));
      }
    } else if (key == "iters") {
      status = ReadItersField(field, sub, spec);
    } else if (IsMoePlanKey(key)) {
      status = ReadMoePlanField(key, field, sub, spec.moe);
    } else if (IsAdaptivePlanKey(key)) {
      status = ReadAdaptivePlanField(key, field, sub, spec.adaptive);
    } else if (key == "warmup") {
      status = ReadIntInto(field, sub, absl::StrCat("0 to ", kMaxWarmupIters),
                           &spec.warmup_iters);
    } else if (key == "check" || key == "graph" || key == "fresh_comm") {
      absl::StatusOr<bool> value = ReadBool(field, sub);
      if (!value.ok()) return value.status();
      bool& target = key == "check"   ? spec.check
                     : key == "graph" ? spec.graph
                                      : spec.fresh_comm;
      target = *value;
    } else if (key == "timeout") {
      absl::StatusOr<absl::Duration> timeout = ReadDuration(field, sub);
      if (!timeout.ok()) return timeout.status();
      spec.timeout = *timeout;
    } else if (key == "nodes") {
      absl::StatusOr<std::vector<ListItem>> nodes = ReadStringList(field, sub);
      if (!nodes.ok()) return nodes.status();
      if (nodes->size() > kMaxNodesPerSweep) {
        return ConfigError(
            field.line, sub,
            absl::StrCat(nodes->size(), " nodes; allowed: up to ",
                         kMaxNodesPerSweep));
      }
      std::set<std::string> seen;
      for (size_t i = 0; i < nodes->size(); ++i) {
        const ListItem& item = (*nodes)[i];
        const std::string at = absl::StrCat(sub, "[", i, "]");
        if (item.value.empty()) {
          return ConfigError(item.line, at, "empty node name");
        }
        if (absl::Status name = ValidateNodeName("node", item.value);
            !name.ok()) {
          return Relabel(name, item.line, at);
        }
        if (!seen.insert(item.value).second) {
          return ConfigError(
              item.line, at,
              absl::StrCat("duplicate node ", QuotePrefix(item.value)));
        }
        plan.nodes.push_back(item.value);
      }
    } else if (key == "isolate_on") {
      status = ReadIsolateOnField(field, sub, plan.isolate_on);
    } else if (key == "campaign") {
      status = ReadCampaignField(field, sub, plan.campaign);
    }
    if (!status.ok()) return status;
  }
  if (absl::Status adaptive = CheckAdaptivePlanKeys(fields, path, spec);
      !adaptive.ok()) {
    return adaptive;
  }
  if (fields.count("factor") > 0 && fields.count("step_bytes") > 0) {
    return ConfigError(fields.at("step_bytes").line,
                       JoinPath(path, "step_bytes"),
                       "give factor or step_bytes, not both");
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ReadIntInto(const Field& field, absl::string_view path,
                         absl::string_view allowed, int* out) {
  absl::StatusOr<int64_t> value = ReadInt(field, path);
  if (!value.ok()) return value.status();
  if (*value < INT_MIN || *value > INT_MAX) {
    return ConfigError(
        field.line, path,
        absl::StrCat(*value, " is out of range; allowed: ", allowed));
  }
  *out = static_cast<int>(*value);
  return absl::OkStatus();
}

absl::StatusOr<absl::Duration> ReadDuration(const Field& field,
                                            absl::string_view path) {
  absl::StatusOr<std::string> text =
      ReadScalar(field, path, "a duration such as 60s");
  if (!text.ok()) return text.status();
  // NaN and infinities: infinite, out of range for Validate.
  if (std::optional<absl::Duration> d = ParseSecondsOrDuration(*text)) {
    return *d;
  }
  return ConfigError(field.line, path,
                     absl::StrCat(QuotePrefix(*text),
                                  " is not a duration; use e.g. 60s, 1m30s "
                                  "or a number of seconds"));
}

int LineOf(const YAML::Node& node) {
  const YAML::Mark mark = node.Mark();
  return mark.is_null() ? 0 : mark.line + 1;
}

absl::Status ConfigError(int line, absl::string_view path,
                         absl::string_view message) {
  const std::string where =
      line > 0 ? absl::StrCat("config line ", line) : "config";
  constexpr size_t kMaxPath = 128;
  const std::string text =
      path.empty()
          ? absl::StrCat(where, ": ", message)
          : absl::StrCat(where, ": ", path.substr(0, kMaxPath),
                         path.size() > kMaxPath ? "..." : "", ": ", message);
  // Keys and values are quoted as written: a control character in one (a
  // quoted "a\nb") would split the one-line error, or forge a log line.
  std::string escaped;
  for (const char c : text) {
    if (absl::ascii_iscntrl(c)) {
      escaped += absl::CHexEscape(absl::string_view(&c, 1));
    } else {
      escaped += c;
    }
  }
  return absl::InvalidArgumentError(escaped);
}

absl::Status Relabel(const absl::Status& status, int line,
                     absl::string_view path) {
  if (status.ok()) return status;
  absl::string_view message = status.message();
  if (const size_t colon = message.find(": ");
      colon != absl::string_view::npos &&
      message.substr(0, colon).find(' ') == absl::string_view::npos) {
    message.remove_prefix(colon + 2);
  }
  return ConfigError(line, path, message);
}

std::string JoinPath(absl::string_view path, absl::string_view key) {
  return path.empty() ? std::string(key) : absl::StrCat(path, ".", key);
}

absl::StatusOr<Fields> ReadMap(const YAML::Node& node, int line,
                               absl::string_view path,
                               const std::vector<absl::string_view>& allowed) {
  if (!node.IsMap()) {
    return ConfigError(
        line, path,
        absl::StrCat(path.empty() ? "the file must be a map of top-level keys"
                                  : "expected a map of keys",
                     ", got ", Describe(node)));
  }
  Fields fields;
  for (auto it = node.begin(); it != node.end(); ++it) {
    const int key_line = LineOf(it->first);
    if (!it->first.IsScalar()) {
      return ConfigError(key_line, path, "keys must be plain strings");
    }
    const std::string key = it->first.Scalar();
    if (!allowed.empty() &&
        std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      std::vector<absl::string_view> sorted = allowed;
      std::sort(sorted.begin(), sorted.end());
      return ConfigError(
          key_line, JoinPath(path, key),
          absl::StrCat("unknown key; allowed: ", absl::StrJoin(sorted, ", ")));
    }
    const auto [existing, inserted] =
        fields.emplace(key, Field{it->second, key_line});
    if (!inserted) {
      return ConfigError(key_line, JoinPath(path, key),
                         absl::StrCat("duplicate key (first at line ",
                                      existing->second.line, ")"));
    }
  }
  return fields;
}

absl::StatusOr<std::string> ReadString(const Field& field,
                                       absl::string_view path) {
  return ReadScalar(field, path, "a string");
}

absl::StatusOr<int64_t> ReadInt(const Field& field, absl::string_view path) {
  absl::StatusOr<std::string> text = ReadScalar(field, path, "a whole number");
  if (!text.ok()) return text.status();
  int64_t value = 0;
  if (!absl::SimpleAtoi(*text, &value)) {
    return ConfigError(
        field.line, path,
        absl::StrCat(QuotePrefix(*text), " is not a whole number"));
  }
  return value;
}

absl::StatusOr<double> ReadDouble(const Field& field, absl::string_view path) {
  absl::StatusOr<std::string> text = ReadScalar(field, path, "a number");
  if (!text.ok()) return text.status();
  double value = 0;
  if (!absl::SimpleAtod(*text, &value) || !std::isfinite(value)) {
    return ConfigError(field.line, path,
                       absl::StrCat(QuotePrefix(*text), " is not a number"));
  }
  return value;
}

absl::StatusOr<bool> ReadBool(const Field& field, absl::string_view path) {
  absl::StatusOr<std::string> text = ReadScalar(field, path, "true or false");
  if (!text.ok()) return text.status();
  bool value = false;
  if (!YAML::convert<bool>::decode(field.value, value)) {
    return ConfigError(
        field.line, path,
        absl::StrCat(QuotePrefix(*text), " is not true or false"));
  }
  return value;
}

absl::StatusOr<std::vector<ListItem>> ReadStringList(const Field& field,
                                                     absl::string_view path) {
  if (!field.value.IsSequence()) {
    return ConfigError(field.line, path,
                       absl::StrCat("expected a list such as [a, b], got ",
                                    Describe(field.value)));
  }
  std::vector<ListItem> items;
  for (size_t i = 0; i < field.value.size(); ++i) {
    const YAML::Node element = field.value[i];
    const int line = LineOf(element) > 0 ? LineOf(element) : field.line;
    if (!element.IsScalar()) {
      return ConfigError(
          line, absl::StrCat(path, "[", i, "]"),
          absl::StrCat("expected a string, got ", Describe(element)));
    }
    items.push_back({element.Scalar(), line});
  }
  return items;
}

absl::StatusOr<PlanConfig> ParsePlan(const std::string& name,
                                     const Field& field) {
  const std::string path = JoinPath("plans", name);
  if (!IsValidConfigName(name)) {
    return ConfigError(field.line, path,
                       "invalid plan name; use 1 to 63 lowercase letters, "
                       "digits, '_' or '-', starting with a letter or digit");
  }
  if (field.value.IsNull()) {
    return ConfigError(field.line, path,
                       "has no fields; write {} for a plan with all defaults");
  }
  std::vector<absl::string_view> keys = {
      "ops",        "min_bytes", "max_bytes", "factor",    "step_bytes",
      "dtype",      "redop",     "root",      "iters",     "warmup",
      "check",      "placement", "graph",     "timeout",   "fresh_comm",
      "nodes",      "tolerance", "min_iters", "max_iters", "step_time_cap",
      "isolate_on", "campaign"};
  for (absl::string_view key : MoePlanKeys()) keys.push_back(key);
  absl::StatusOr<Fields> fields = ReadMap(field.value, field.line, path, keys);
  if (!fields.ok()) return fields.status();
  PlanConfig plan;
  plan.name = name;
  absl::Status status = ReadPlanFields(*fields, path, plan);
  if (status.ok()) status = ApplyMoePlanPreset(*fields, path, plan.spec.moe);
  if (!status.ok()) return status;

  // Root is checked against the real rank count when the sweep runs, and
  // so is what depends on it: the plan is checked at the fewest ranks its
  // ops allow (pairwise: 2; the moe ops: enough experts for topk).
  SweepSpec checked = plan.spec;
  checked.root = 0;
  const int experts = std::max(checked.moe.experts_per_rank, 1);
  const int fewest_ranks =
      std::max(2, (std::max(checked.moe.topk, 1) + experts - 1) / experts);
  ResolveMoeForRanks(checked.moe, fewest_ranks, {});
  absl::StatusOr<ResolvedSpec> resolved = Validate(checked, fewest_ranks);
  if (!resolved.ok()) {
    const absl::string_view message = resolved.status().message();
    std::string key(message.substr(0, message.find(':')));
    if (key == "warmup_iters") key = "warmup";
    const auto it = fields->find(key);
    return Relabel(resolved.status(),
                   it != fields->end() ? it->second.line : field.line,
                   JoinPath(path, key));
  }
  // With max_bytes auto the sizes are known when the sweep is planned
  // (Expand bounds them then).
  if (!HasMaxBytesAuto(plan.spec) &&
      SizeSchedule(plan.spec).size() > kMaxSteps) {
    return ConfigError(
        field.line, path,
        absl::StrCat("min_bytes..max_bytes gives more than ", kMaxSteps,
                     " sizes; raise factor or step_bytes, or narrow the "
                     "range"));
  }
  if (plan.campaign && !plan.campaign->judge_op.empty()) {
    std::vector<std::string> ops;
    for (Op op : resolved->ops) ops.emplace_back(OpName(op));
    if (std::find(ops.begin(), ops.end(), plan.campaign->judge_op) ==
        ops.end()) {
      return ConfigError(
          fields->at("campaign").line, JoinPath(path, "campaign.judge_op"),
          absl::StrCat(QuotePrefix(plan.campaign->judge_op),
                       " is not one of the plan's ops; allowed: ",
                       absl::StrJoin(ops, ", ")));
    }
  }
  return plan;
}

}  // namespace fabricpulse::core::config_internal
