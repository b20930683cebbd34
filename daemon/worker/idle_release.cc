#include "daemon/worker/idle_release.h"

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "daemon/core/log.h"

namespace fabricpulse::worker {

IdleRelease::IdleRelease(absl::Duration after, IdleReleaseHooks hooks)
    : after_(after), hooks_(std::move(hooks)) {
  if (after_ > absl::ZeroDuration()) thread_ = std::thread([this] { Loop(); });
}

IdleRelease::~IdleRelease() {
  {
    absl::MutexLock lock(&mu_);
    stop_ = true;
  }
  if (thread_.joinable()) thread_.join();
}

void IdleRelease::SweepStarted() {
  absl::MutexLock lock(&mu_);
  auto idle = [this]()
                  ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return !releasing_; };
  mu_.Await(absl::Condition(&idle));
  ++sweeps_;
}

void IdleRelease::SweepEnded() {
  absl::MutexLock lock(&mu_);
  --sweeps_;
  last_end_ = absl::Now();
  device_held_ = true;
  ++ends_;
}

int IdleRelease::device_releases() const {
  absl::MutexLock lock(&mu_);
  return device_releases_;
}

absl::Time IdleRelease::ReleaseDue(absl::Time now) {
  std::optional<absl::Time> oldest = hooks_.oldest_use();
  if (oldest) {
    if (now < *oldest + after_) return *oldest + after_;
  } else if (!device_held_) {
    return absl::InfiniteFuture();  // nothing held: wait for a sweep
  } else if (now < last_end_ + after_) {
    return last_end_ + after_;
  }
  releasing_ = true;
  mu_.Unlock();
  const absl::Time cutoff = now - after_;
  hooks_.drop_used_before(cutoff);
  const bool empty = !hooks_.oldest_use().has_value();
  absl::Status released = empty ? hooks_.release_device() : absl::OkStatus();
  mu_.Lock();
  releasing_ = false;
  if (!empty) return absl::InfinitePast();  // more to drop: look again
  if (!released.ok()) {
    // Try again after another quiet period; say it once per attempt.
    FP_LOG_WARNING(absl::StrCat("idle release: ", released.message()));
    last_end_ = now;
    return now + after_;
  }
  device_held_ = false;
  ++device_releases_;
  FP_LOG_INFO(absl::StrCat("idle for ", absl::FormatDuration(after_),
                           ": released the communicators and the device"));
  return absl::InfiniteFuture();
}

void IdleRelease::Loop() {
  absl::MutexLock lock(&mu_);
  while (!stop_) {
    if (sweeps_ > 0) {
      auto done = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return stop_ || sweeps_ == 0;
      };
      mu_.Await(absl::Condition(&done));
      continue;
    }
    const uint64_t ends = ends_;
    const absl::Time due = ReleaseDue(absl::Now());
    if (due <= absl::Now()) continue;
    auto woken = [this, ends]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return stop_ || sweeps_ > 0 || ends_ != ends;
    };
    mu_.AwaitWithDeadline(absl::Condition(&woken), due);
  }
}

}  // namespace fabricpulse::worker
