// Internal to the coordinator config parser: YAML field readers that turn
// every problem into one "config line N: <path>: <problem>" line, and the
// parser of one plan. Use ParseCoordinatorConfig (coordinator_config.h)
// instead of these.
//
// Thread-safety: stateless functions; YAML::Node values must not be shared
// across threads while being read (yaml-cpp nodes are not thread-safe).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "daemon/core/coordinator_config.h"
#include "yaml-cpp/yaml.h"

namespace fabricpulse::core::config_internal {

// One key of a YAML map with its value and the key's 1-based line. Copy it,
// never assign over one: YAML::Node assignment rewrites the referenced node.
struct Field {
  YAML::Node value;
  int line = 0;
};
using Fields = std::map<std::string, Field>;

// 1-based line of `node`, 0 when yaml-cpp has no position for it.
int LineOf(const YAML::Node& node);

// INVALID_ARGUMENT "config line <line>: <path>: <message>" ("config: ..."
// when line is 0, no path part when path is empty), on one line: control
// characters are escaped ("\n", "\x01"); a path longer than 128
// characters (keys are the user's) is cut, ending "...".
absl::Status ConfigError(int line, absl::string_view path,
                         absl::string_view message);

// Turns a core error "<field>: <rest>" (Validate, ParseOp, ParseByteSize,
// CronSchedule::Parse, ...) into ConfigError(line, path, rest). OK stays OK.
absl::Status Relabel(const absl::Status& status, int line,
                     absl::string_view path);

// "a.b" from "a" and "b"; "b" when `path` is empty.
std::string JoinPath(absl::string_view path, absl::string_view key);

// Checks that `node` (found at `line`, named `path`) is a map whose keys are
// distinct scalars, each one of `allowed` (any key when `allowed` is
// empty), and returns them. Errors
// (INVALID_ARGUMENT): not a map, a key that is not a string, an unknown key
// (listing the allowed ones), a duplicate key.
absl::StatusOr<Fields> ReadMap(const YAML::Node& node, int line,
                               absl::string_view path,
                               const std::vector<absl::string_view>& allowed);

// Scalar readers; `path` names the field in errors. Errors: INVALID_ARGUMENT
// when the value is missing (null), not a scalar, or not of the type.
absl::StatusOr<std::string> ReadString(const Field& field,
                                       absl::string_view path);
absl::StatusOr<int64_t> ReadInt(const Field& field, absl::string_view path);
absl::StatusOr<double> ReadDouble(const Field& field, absl::string_view path);
absl::StatusOr<bool> ReadBool(const Field& field, absl::string_view path);

// A whole number narrowed into an int; `allowed` is the range text
// Validate would print. Errors: those of ReadInt; INVALID_ARGUMENT outside
// the int range.
absl::Status ReadIntInto(const Field& field, absl::string_view path,
                         absl::string_view allowed, int* out);

// A duration such as 60s, 1m30s or a number of seconds; NaN and infinities
// read as an infinite duration (out of range for Validate). Errors:
// INVALID_ARGUMENT when the value is neither.
absl::StatusOr<absl::Duration> ReadDuration(const Field& field,
                                            absl::string_view path);

// A plan's iteration keys (plan_adaptive.cc): `iters` is a whole number or
// `auto` (adaptive iteration counts, with the optional keys tolerance,
// min_iters, max_iters and step_time_cap, which need iters: auto).
bool IsAdaptivePlanKey(absl::string_view key);
// Reads iters into spec.iters, or `auto` into spec.adaptive.enabled.
absl::Status ReadItersField(const Field& field, absl::string_view path,
                            SweepSpec& spec);
// Reads one of the IsAdaptivePlanKey keys into `adaptive` (ranges are
// Validate's to check).
absl::Status ReadAdaptivePlanField(absl::string_view key, const Field& field,
                                   absl::string_view path,
                                   AdaptiveIters& adaptive);
// INVALID_ARGUMENT at the first adaptive key (in file order) of a plan
// whose iters is not auto.
absl::Status CheckAdaptivePlanKeys(const Fields& fields, absl::string_view path,
                                   const SweepSpec& spec);

// A plan's MoE keys (plan_moe.cc): the shape of its moe ops (ranges are
// Validate's to check).
bool IsMoePlanKey(absl::string_view key);
std::vector<absl::string_view> MoePlanKeys();
absl::Status ReadMoePlanField(absl::string_view key, const Field& field,
                              absl::string_view path, MoeShape& moe);
// After the fields are read: the plan's moe_preset (if any) applied under
// its explicit moe keys. Errors: INVALID_ARGUMENT at moe_preset's line
// naming the allowed presets.
absl::Status ApplyMoePlanPreset(const Fields& fields, absl::string_view path,
                                MoeShape& moe);

// A plan's isolate_on (plan_isolate_on.cc): a list of `regression` and
// `failure`, each at most once; [] = off. Errors: INVALID_ARGUMENT naming
// the key (or the element) and the allowed values.
absl::Status ReadIsolateOnField(const Field& field, absl::string_view path,
                                IsolateOn& out);

// A plan's campaign block (plan_campaign.cc, campaign_config.h). Errors:
// INVALID_ARGUMENT naming the key (plans.<name>.campaign.<key>) and its
// allowed range.
absl::Status ReadCampaignField(const Field& field, absl::string_view path,
                               std::optional<CampaignConfig>& out);

// A list of strings, each with its 1-based line. Errors: INVALID_ARGUMENT
// when the value is not a list or an element is not a string.
struct ListItem {
  std::string value;
  int line = 0;
};
absl::StatusOr<std::vector<ListItem>> ReadStringList(const Field& field,
                                                     absl::string_view path);

// Parses plans.<name> (`field` is its value and key line). Errors:
// INVALID_ARGUMENT for a bad name, a bad or unknown field, a value rejected
// by core::Validate (with nranks 1, root only checked >= 0) or too many
// sizes.
absl::StatusOr<PlanConfig> ParsePlan(const std::string& name,
                                     const Field& field);

}  // namespace fabricpulse::core::config_internal
