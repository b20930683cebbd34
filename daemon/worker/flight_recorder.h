// A worker's flight recorder: a ring of its last steps (sweep, seq, op,
// size, dtype, enqueued / started / completed times, state), readable from
// another thread while a step is stuck.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "fabricpulse/v1/types.pb.h"

namespace fabricpulse::worker {

// Thread-safe.
class FlightRecorder {
 public:
  explicit FlightRecorder(size_t capacity = 512) : capacity_(capacity) {}

  // Records that this rank joined step `seq` of a sweep; returns its slot id
  // for Finish().
  uint64_t Begin(const std::string& sweep_id, const std::string& comm_id,
                 int rank, uint64_t seq, const std::string& op, uint64_t bytes,
                 const std::string& dtype);
  // Completed when `status` is OK. A timeout, abort or lost peer leaves the
  // step "started" (joined, not finished: a victim); any other error marks
  // it "failed".
  void Finish(uint64_t id, const absl::Status& status);

  // Records of `sweep_id` (all when empty), oldest first, and the rank this
  // worker had in it (-1 when none).
  std::vector<v1::FlightRecord> Snapshot(const std::string& sweep_id,
                                         int* rank) const;

 private:
  struct Entry {
    uint64_t id;
    int rank;
    v1::FlightRecord record;
  };
  const size_t capacity_;
  mutable absl::Mutex mu_;
  std::deque<Entry> ring_ ABSL_GUARDED_BY(mu_);
  uint64_t next_id_ ABSL_GUARDED_BY(mu_) = 1;
};

}  // namespace fabricpulse::worker
