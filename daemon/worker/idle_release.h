// Gives back what a quiet worker holds: communicators unused for the quiet
// period are dropped one by one, and once none is left the backend drops
// its device (NCCL: the CUDA context), so that an idle worker holds no GPU
// memory. The next sweep builds them again (and records the init time).
//
// The coordinator names a new communicator for members quiet for about as
// long (CommNaming), so that no rank reuses a communicator a peer dropped.
#pragma once

#include <functional>
#include <optional>
#include <thread>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace fabricpulse::worker {

struct IdleReleaseHooks {
  // Drops the communicators last used before `cutoff`.
  std::function<void(absl::Time cutoff)> drop_used_before;
  // When the least recently used cached communicator was last used; none
  // when nothing is cached.
  std::function<std::optional<absl::Time>()> oldest_use;
  // Drops the device; called only with nothing cached and no sweep running.
  std::function<absl::Status()> release_device;
};

// Thread-safe. With `after` zero nothing is ever released and no thread
// runs; otherwise one thread, asleep until the next release is due.
class IdleRelease {
 public:
  IdleRelease(absl::Duration after, IdleReleaseHooks hooks);
  ~IdleRelease();  // joins the thread

  IdleRelease(const IdleRelease&) = delete;
  IdleRelease& operator=(const IdleRelease&) = delete;

  // A sweep starts: waits for a release in progress to finish, and none
  // starts until the matching SweepEnded().
  void SweepStarted();
  // A sweep ended: the quiet period starts now.
  void SweepEnded();
  // Device releases done so far.
  int device_releases() const;

 private:
  void Loop();
  // One pass: drops what is due; returns when the next pass is due.
  absl::Time ReleaseDue(absl::Time now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const absl::Duration after_;
  const IdleReleaseHooks hooks_;
  mutable absl::Mutex mu_;
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  int sweeps_ ABSL_GUARDED_BY(mu_) = 0;  // running now
  bool releasing_ ABSL_GUARDED_BY(mu_) = false;
  bool device_held_ ABSL_GUARDED_BY(mu_) = false;
  absl::Time last_end_ ABSL_GUARDED_BY(mu_);
  uint64_t ends_ ABSL_GUARDED_BY(mu_) = 0;  // wakes the thread
  int device_releases_ ABSL_GUARDED_BY(mu_) = 0;
  std::thread thread_;
};

}  // namespace fabricpulse::worker
