// Adaptive iteration settings for tests, in one call.
#pragma once

#include "absl/time/time.h"
#include "daemon/core/adaptive_iters.h"

namespace fabricpulse::core {

inline AdaptiveIters AdaptiveSettings(double tolerance = 0.01, int min = 5,
                                      int max = 100,
                                      absl::Duration cap = absl::Seconds(2)) {
  AdaptiveIters a;
  a.enabled = true;
  a.tolerance = tolerance;
  a.min_iters = min;
  a.max_iters = max;
  a.step_time_cap = cap;
  return a;
}

}  // namespace fabricpulse::core
