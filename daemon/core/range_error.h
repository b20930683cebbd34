// The one-line error every validator in core gives for a value out of its
// range: "FIELD: VALUE is out of range; allowed: ALLOWED".
#pragma once

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace fabricpulse::core {

inline absl::Status RangeError(absl::string_view field, absl::string_view value,
                               absl::string_view allowed) {
  return absl::InvalidArgumentError(
      absl::StrCat(field, ": ", value, " is out of range; allowed: ", allowed));
}

}  // namespace fabricpulse::core
