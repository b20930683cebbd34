// What an agent knows of its coordinator, for the sweeps it runs: the
// membership epoch (a request planned at an older epoch is refused) and the
// sweep lease (a sweep is aborted when the coordinator stops answering
// heartbeats, or answers without listing it).
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace fabricpulse::agent {

// Thread-safe. Times are passed in, so the logic is testable without a
// clock. `sent` is when the answered request left the agent: an answer
// proves the coordinator's state no earlier than that.
class CoordinatorContact {
 public:
  // Registration answered: the coordinator's epoch becomes the current one
  // (also when lower: a restarted coordinator counts from the start).
  void Registered(absl::Time sent, uint64_t epoch);
  // Heartbeat answered; `sweep_id` is the sweep the coordinator has this
  // agent reserved for ("" when none).
  void HeartbeatAnswered(absl::Time sent, uint64_t epoch,
                         const std::string& sweep_id);
  // The coordinator answered but no longer knows this agent (it restarted
  // or declared the agent lost): it runs no sweep here.
  void Forgotten(absl::Time sent);

  // Admits a sweep planned at `epoch`. Errors: FAILED_PRECONDITION when a
  // newer epoch was seen in a registration or heartbeat answer (the request
  // is stale). The request's epoch is not kept.
  absl::Status AdmitEpoch(uint64_t epoch);

  // OK while `sweep_id`, which reached the agent at `started`, holds its
  // lease at `now`. Errors: UNAVAILABLE (the coordinator is the lost peer),
  // saying why, when no exchange was answered for `lease` (counted from
  // `started` at the earliest), or when an exchange sent after `started` was
  // answered without this sweep.
  absl::Status CheckLease(const std::string& sweep_id, absl::Time started,
                          absl::Duration lease, absl::Time now) const;

 private:
  mutable absl::Mutex mu_;
  uint64_t epoch_ ABSL_GUARDED_BY(mu_) = 0;
  absl::Time last_answer_sent_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
  std::string last_sweep_ ABSL_GUARDED_BY(mu_);
};

}  // namespace fabricpulse::agent
