// Rate-limits one kind of log line: the first event is logged at once,
// later ones at most once per interval, with the count held back meanwhile.
#pragma once

#include <cstdint>

#include "absl/time/time.h"

namespace fabricpulse::common {

// Not thread-safe (guard it with the caller's lock). Time is passed in.
class LogThrottle {
 public:
  explicit LogThrottle(absl::Duration interval) : interval_(interval) {}

  // Records one event at `now`. True when it should be logged; then
  // `*suppressed` is the number of events held back since the last line
  // logged (0 for the first).
  bool ShouldLog(absl::Time now, uint64_t* suppressed) {
    if (logged_once_ && now - last_ < interval_) {
      ++held_back_;
      return false;
    }
    *suppressed = held_back_;
    held_back_ = 0;
    last_ = now;
    logged_once_ = true;
    return true;
  }

 private:
  const absl::Duration interval_;
  bool logged_once_ = false;
  absl::Time last_;
  uint64_t held_back_ = 0;
};

}  // namespace fabricpulse::common
