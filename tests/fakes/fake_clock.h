// A Clock whose time moves only when a test calls Advance(). Waits through
// it end when their condition holds or when Advance() reaches their deadline;
// nothing in a test sleeps.
#pragma once

#include <map>
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

  // Moves time forward and wakes every wait whose deadline has come.
  void Advance(absl::Duration by) {
    std::set<absl::Mutex*> waiting;
    {
      absl::MutexLock lock(&time_mu_);
      now_ += by;
      waiting = waiting_;
    }
    // absl::Mutex re-evaluates a waiter's condition when the mutex is
    // released: touching each waiter's mutex makes it look at the new time.
    for (absl::Mutex* mu : waiting) {
      mu->Lock();
      mu->Unlock();
    }
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

  bool AwaitWithDeadline(absl::Mutex* mu, const absl::Condition& condition,
                         absl::Time deadline) override
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    {
      absl::MutexLock lock(&time_mu_);
      waiting_.insert(mu);
      registered_[mu]++;
      deadlines_.insert(deadline);
    }
    struct Args {
      FakeClock* clock;
      const absl::Condition* condition;
      absl::Time deadline;
    } args{this, &condition, deadline};
    mu->Await(absl::Condition(
        +[](Args* a) {
          return a->condition->Eval() || a->clock->Now() >= a->deadline;
        },
        &args));
    const bool met = condition.Eval();
    {
      absl::MutexLock lock(&time_mu_);
      deadlines_.erase(deadlines_.find(deadline));
      // Another thread may wait on the same mutex; keep it registered then.
      if (--registered_[mu] == 0) waiting_.erase(mu);
    }
    return met;
  }

 private:
  absl::Mutex time_mu_;
  absl::Time now_ ABSL_GUARDED_BY(time_mu_);
  std::set<absl::Mutex*> waiting_ ABSL_GUARDED_BY(time_mu_);
  std::map<absl::Mutex*, int> registered_ ABSL_GUARDED_BY(time_mu_);
  std::multiset<absl::Time> deadlines_ ABSL_GUARDED_BY(time_mu_);
};

}  // namespace fabricpulse::fakes
