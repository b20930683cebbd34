#include "daemon/core/duration_text.h"

#include <cmath>

#include "absl/strings/numbers.h"

namespace fabricpulse::core {

std::optional<absl::Duration> ParseSecondsOrDuration(absl::string_view text) {
  double seconds = 0;
  if (absl::SimpleAtod(text, &seconds)) {
    return std::isfinite(seconds) ? absl::Seconds(seconds)
                                  : absl::InfiniteDuration();
  }
  absl::Duration duration;
  if (absl::ParseDuration(text, &duration)) return duration;
  return std::nullopt;
}

}  // namespace fabricpulse::core
