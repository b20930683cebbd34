#include "client/commands/iters_flags.h"

#include <cmath>
#include <optional>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "daemon/core/duration_text.h"
#include "daemon/core/name_rules.h"

namespace fabricpulse::client {
namespace {

absl::Status NotA(absl::string_view flag, absl::string_view text,
                  absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat(flag, ": ", core::QuotePrefix(text), " is not ", what));
}

absl::Status ReadInt(absl::string_view flag, const std::string& text,
                     int* out) {
  if (!absl::SimpleAtoi(text, out)) return NotA(flag, text, "a whole number");
  return absl::OkStatus();
}

}  // namespace

absl::Status ApplyItersFlags(const ItersFlags& flags, core::SweepSpec& spec) {
  const bool adaptive = flags.iters == "auto";
  if (!adaptive && !absl::SimpleAtoi(flags.iters, &spec.iters)) {
    return NotA("--iters", flags.iters, "a whole number or auto");
  }
  const std::pair<const char*, const std::string*> settings[] = {
      {"--tolerance", &flags.tolerance},
      {"--min-iters", &flags.min_iters},
      {"--max-iters", &flags.max_iters},
      {"--step-time-cap", &flags.step_time_cap}};
  for (const auto& [flag, value] : settings) {
    if (!adaptive && !value->empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          flag, ": only with --iters auto (adaptive iteration counts)"));
    }
  }
  if (!adaptive) return absl::OkStatus();
  core::AdaptiveIters& a = spec.adaptive;
  a.enabled = true;
  if (!flags.tolerance.empty() &&
      !(absl::SimpleAtod(flags.tolerance, &a.tolerance) &&
        std::isfinite(a.tolerance))) {
    return NotA("--tolerance", flags.tolerance, "a number such as 0.01");
  }
  if (!flags.min_iters.empty()) {
    if (absl::Status s = ReadInt("--min-iters", flags.min_iters, &a.min_iters);
        !s.ok()) {
      return s;
    }
  }
  if (!flags.max_iters.empty()) {
    if (absl::Status s = ReadInt("--max-iters", flags.max_iters, &a.max_iters);
        !s.ok()) {
      return s;
    }
  }
  if (!flags.step_time_cap.empty()) {
    std::optional<absl::Duration> cap =
        core::ParseSecondsOrDuration(flags.step_time_cap);
    if (!cap) {
      return NotA("--step-time-cap", flags.step_time_cap,
                  "a duration; use e.g. 2s, 500ms, 1m");
    }
    a.step_time_cap = *cap;
  }
  return absl::OkStatus();
}

}  // namespace fabricpulse::client
