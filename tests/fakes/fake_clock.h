// A Clock whose time moves only when a test calls Advance(). Waits through
// it end when their condition holds or when Advance() reaches their
// deadline; nothing in a test sleeps for fake time to pass.
#pragma once

#include <set>
#include <thread>

#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "daemon/core/clock.h"

namespace fabricpulse::fakes {

// Thread-safe.
class FakeClock final : public core::Clock {
 public:
  explicit FakeClock(absl::Time start = absl::FromUnixSeconds(1'800'000'000))
      : now_(start) {}

  absl::Time Now() override {
    absl::MutexLock lock(&time_mu_);
    return now_;
  }

  // Moves time forward; every wait whose deadline has come ends (within a
  // millisecond of real time).
  void Advance(absl::Duration by) {
    absl::MutexLock lock(&time_mu_);
    now_ += by;
  }

  // Moves time to the earliest deadline that a thread waits for and that is
  // still to come; false (time unchanged) when no thread waits for one.
  // Advancing deadline by deadline never moves time past what a waiter
  // asked for, even when the waiter is slow to get to its wait. A wait
  // without a deadline (InfiniteFuture: a campaign driver waiting only for
  // its group sweeps) is no time to move to: time at infinity made every
  // later result unrecordable (a flake of CampaignRunnerTest under load).
  bool AdvanceToNextDeadline() {
    absl::MutexLock lock(&time_mu_);
    auto next = deadlines_.upper_bound(now_);
    if (next == deadlines_.end() || *next == absl::InfiniteFuture()) {
      return false;
    }
    now_ = *next;
    return true;
  }

  // How many threads wait through this clock for a deadline still to come
  // (tests wait for a component to reach its next timed wait before
  // advancing; a waiter whose deadline has passed is on its way out).
  int waiters() {
    absl::MutexLock lock(&time_mu_);
    int n = 0;
    for (absl::Time deadline : deadlines_) n += deadline > now_;
    return n;
  }

  // Waits, in real time and bounded by `real_timeout`, until a thread waits
  // through this clock for a deadline still to come; whether one does.
  bool WaitForWaiter(absl::Duration real_timeout = absl::Seconds(10)) {
    const absl::Time deadline = absl::Now() + real_timeout;
    while (waiters() == 0) {
      if (absl::Now() >= deadline) return false;
      std::this_thread::yield();
    }
    return true;
  }

  // Waits on `mu` for `condition`, looking at the fake time every
  // millisecond of real time (a fake never touches the caller's mutex from
  // another thread: it may be gone by then).
  bool AwaitWithDeadline(absl::Mutex* mu, const absl::Condition& condition,
                         absl::Time deadline) override
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    {
      absl::MutexLock lock(&time_mu_);
      deadlines_.insert(deadline);
    }
    while (!condition.Eval() && Now() < deadline) {
      mu->AwaitWithTimeout(condition, absl::Milliseconds(1));
    }
    {
      absl::MutexLock lock(&time_mu_);
      deadlines_.erase(deadlines_.find(deadline));
    }
    return condition.Eval();
  }

 private:
  absl::Mutex time_mu_;
  absl::Time now_ ABSL_GUARDED_BY(time_mu_);
  std::multiset<absl::Time> deadlines_ ABSL_GUARDED_BY(time_mu_);
};

}  // namespace fabricpulse::fakes
