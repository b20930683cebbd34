// How flags and config files spell a duration: a number of seconds ("30",
// "0.5") or an absl::ParseDuration string ("30s", "500ms", "1m30s").
#pragma once

#include <optional>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace fabricpulse::core {

// The duration `text` names; nullopt when it is neither spelling. A number
// that is not finite ("nan", "inf") is absl::InfiniteDuration(), which every
// caller's range check refuses (absl::Seconds(NaN) is undefined). Negative
// values are returned as they are: the range is the caller's.
std::optional<absl::Duration> ParseSecondsOrDuration(absl::string_view text);

}  // namespace fabricpulse::core
