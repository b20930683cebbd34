// Whether the workers of a running sweep still answer: the relay pings each
// rank's worker while its stream runs, since a worker that is stopped
// (SIGSTOP, a frozen cgroup) or wedged sends nothing and breaks nothing,
// and its step may legitimately run for far longer than one op. A worker
// that answers no ping for longer than the op timeout (plus one call's
// bound) is hung, whatever its step's length: the relay fails the sweep and
// kills it (issue 29, item 1).
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "daemon/agent/worker_client.h"

namespace fabricpulse::agent {

// Thread-compatible (Poll and Silent from the relay's one thread); the
// pings' answers arrive on transport threads and are kept under a lock.
class WorkerLiveness {
 public:
  // `interval`: how often each worker is pinged; `call_timeout`: each
  // ping's bound. Every worker counts as heard from at `start`.
  WorkerLiveness(std::vector<std::shared_ptr<WorkerClient>> workers,
                 absl::Time start, absl::Duration interval,
                 absl::Duration call_timeout);

  // Pings each worker i with running[i] whose last ping is `interval` old
  // and has been answered or has timed out (one ping in flight a worker).
  // `clock_now` stamps each answer's arrival (on a transport thread).
  void Poll(const std::vector<bool>& running, absl::Time now,
            std::function<absl::Time()> clock_now);

  struct Silence {
    size_t worker;          // index into the workers given
    absl::Duration silent;  // since the last answer (or start)
  };
  // The running worker silent the longest, when that is more than `limit`.
  std::optional<Silence> Silent(const std::vector<bool>& running,
                                absl::Duration limit, absl::Time now) const;

 private:
  struct Shared {
    absl::Mutex mu;
    std::vector<absl::Time> heard ABSL_GUARDED_BY(mu);
    std::vector<bool> in_flight ABSL_GUARDED_BY(mu);
  };
  const std::vector<std::shared_ptr<WorkerClient>> workers_;
  const absl::Duration interval_;
  const absl::Duration call_timeout_;
  std::vector<absl::Time> sent_;
  const std::shared_ptr<Shared> shared_ = std::make_shared<Shared>();
};

}  // namespace fabricpulse::agent
