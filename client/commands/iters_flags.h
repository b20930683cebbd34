// The iteration flags of `sweep`: --iters N|auto and, with --iters auto, the
// adaptive settings --tolerance, --min-iters, --max-iters, --step-time-cap.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "daemon/core/sweep_spec.h"

namespace fabricpulse::client {

// As typed; an empty adaptive flag was not given (its default applies).
struct ItersFlags {
  std::string iters = "20";
  std::string tolerance;
  std::string min_iters;
  std::string max_iters;
  std::string step_time_cap;
};

// Sets spec.iters, or spec.adaptive for --iters auto (ranges are checked by
// core::Validate where the sweep runs). Errors: INVALID_ARGUMENT naming the
// flag: a value that is not a number (or duration, or auto), an adaptive
// flag without --iters auto.
absl::Status ApplyItersFlags(const ItersFlags& flags, core::SweepSpec& spec);

}  // namespace fabricpulse::client
