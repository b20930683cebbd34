// The plan key isolate_on (coordinator_config.h): when the coordinator
// isolates after one of the plan's sweeps.
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "daemon/core/coordinator_config.h"
#include "daemon/core/name_rules.h"
#include "daemon/core/plan_parser.h"

namespace fabricpulse::core {

std::string IsolateOnText(const IsolateOn& on) {
  std::vector<std::string> names;
  if (on.regression) names.push_back("regression");
  if (on.failure) names.push_back("failure");
  return names.empty() ? "off" : absl::StrJoin(names, ", ");
}

namespace config_internal {

absl::Status ReadIsolateOnField(const Field& field, absl::string_view path,
                                IsolateOn& out) {
  constexpr absl::string_view kAllowed =
      "allowed: a list of regression, failure (each at most once); [] = off";
  if (!field.value.IsSequence()) {
    return ConfigError(field.line, path,
                       absl::StrCat("expected a list such as [regression, "
                                    "failure]; ",
                                    kAllowed));
  }
  absl::StatusOr<std::vector<ListItem>> items = ReadStringList(field, path);
  if (!items.ok()) return items.status();
  IsolateOn on;
  for (size_t i = 0; i < items->size(); ++i) {
    const ListItem& item = (*items)[i];
    const std::string at = absl::StrCat(path, "[", i, "]");
    bool* flag = item.value == "regression" ? &on.regression
                 : item.value == "failure"  ? &on.failure
                                            : nullptr;
    if (flag == nullptr) {
      return ConfigError(item.line, at,
                         absl::StrCat("unknown value ", QuotePrefix(item.value),
                                      "; ", kAllowed));
    }
    if (*flag) {
      return ConfigError(
          item.line, at,
          absl::StrCat("duplicate value ", item.value, "; ", kAllowed));
    }
    *flag = true;
  }
  out = on;
  return absl::OkStatus();
}

}  // namespace config_internal
}  // namespace fabricpulse::core
