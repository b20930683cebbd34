// The clock seam: every lease, deadline and silence decision reads time from
// a Clock and waits through it, so unit tests drive time with FakeClock
// (tests/fakes/fake_clock.h) instead of sleeping.
#pragma once

#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace fabricpulse::core {

// Implementations are thread-safe.
class Clock {
 public:
  virtual ~Clock() = default;
  virtual absl::Time Now() = 0;
  // With `mu` held: waits until `condition` holds or Now() reaches
  // `deadline`, whichever comes first; returns whether `condition` holds.
  // Like absl::Mutex::AwaitWithDeadline, but on this clock's time.
  virtual bool AwaitWithDeadline(absl::Mutex* mu,
                                 const absl::Condition& condition,
                                 absl::Time deadline)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) = 0;
};

// Wall-clock time (absl::Now) and absl::Mutex's own timed waits.
class RealClock final : public Clock {
 public:
  absl::Time Now() override { return absl::Now(); }
  bool AwaitWithDeadline(absl::Mutex* mu, const absl::Condition& condition,
                         absl::Time deadline) override
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    return mu->AwaitWithDeadline(condition, deadline);
  }
  // The process-wide real clock (stateless).
  static Clock* Get() {
    static RealClock clock;
    return &clock;
  }
};

}  // namespace fabricpulse::core
