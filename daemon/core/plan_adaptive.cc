// A plan's iteration keys: iters (a whole number or auto) and the adaptive
// settings that go with iters: auto. Declared in plan_parser.h.
#include <algorithm>
#include <climits>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "daemon/core/name_rules.h"
#include "daemon/core/plan_parser.h"

namespace fabricpulse::core::config_internal {
namespace {

constexpr absl::string_view kAdaptiveKeys[] = {"tolerance", "min_iters",
                                               "max_iters", "step_time_cap"};

}  // namespace

bool IsAdaptivePlanKey(absl::string_view key) {
  return std::find(std::begin(kAdaptiveKeys), std::end(kAdaptiveKeys), key) !=
         std::end(kAdaptiveKeys);
}

absl::Status ReadItersField(const Field& field, absl::string_view path,
                            SweepSpec& spec) {
  const std::string allowed = absl::StrCat("1 to ", kMaxIters, ", or auto");
  if (field.value.IsScalar() && field.value.Scalar() == "auto") {
    spec.adaptive.enabled = true;
    return absl::OkStatus();
  }
  int64_t whole = 0;
  if (field.value.IsScalar() &&
      !absl::SimpleAtoi(field.value.Scalar(), &whole)) {
    return ConfigError(field.line, path,
                       absl::StrCat(QuotePrefix(field.value.Scalar()),
                                    " is not a whole number or auto"));
  }
  return ReadIntInto(field, path, allowed, &spec.iters);
}

absl::Status ReadAdaptivePlanField(absl::string_view key, const Field& field,
                                   absl::string_view path,
                                   AdaptiveIters& adaptive) {
  if (key == "tolerance") {
    absl::StatusOr<double> tolerance = ReadDouble(field, path);
    if (!tolerance.ok()) return tolerance.status();
    adaptive.tolerance = *tolerance;
  } else if (key == "min_iters") {
    return ReadIntInto(field, path,
                       absl::StrCat(kMinMinIters, " to ", kMaxIters),
                       &adaptive.min_iters);
  } else if (key == "max_iters") {
    return ReadIntInto(field, path, absl::StrCat("min_iters to ", kMaxIters),
                       &adaptive.max_iters);
  } else if (key == "step_time_cap") {
    absl::StatusOr<absl::Duration> cap = ReadDuration(field, path);
    if (!cap.ok()) return cap.status();
    adaptive.step_time_cap = *cap;
  }
  return absl::OkStatus();
}

absl::Status CheckAdaptivePlanKeys(const Fields& fields, absl::string_view path,
                                   const SweepSpec& spec) {
  if (spec.adaptive.enabled) return absl::OkStatus();
  const Fields::value_type* first = nullptr;
  for (const auto& entry : fields) {
    if (!IsAdaptivePlanKey(entry.first)) continue;
    if (first == nullptr || entry.second.line < first->second.line) {
      first = &entry;
    }
  }
  if (first == nullptr) return absl::OkStatus();
  return ConfigError(
      first->second.line, JoinPath(path, first->first),
      "only with iters: auto (adaptive iteration counts); add iters: auto or "
      "remove the key");
}

}  // namespace fabricpulse::core::config_internal
