// Keeps the sweep history within its retention (config `history:`): every
// finished sweep older than max_age goes, and the oldest go first while the
// database is larger than max_bytes. Runs after each finished sweep and on
// a timer, from the coordinator's housekeeping.
//
// What retention costs: baselines read the newest `baseline.window`
// succeeded sweeps of a plan; once those are removed the plan has no
// baseline (and flags no regression) until new ones accumulate. Nothing is
// kept back for baselines.
#pragma once

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "daemon/coordinator/store/history_store.h"
#include "daemon/core/clock.h"
#include "daemon/core/limits.h"

namespace fabricpulse::coordinator {

struct RetentionPolicy {
  absl::Duration max_age = core::kDefaultHistoryMaxAge;
  uint64_t max_bytes = core::kDefaultHistoryMaxBytes;
  // A pass runs at least this often, finished sweeps or not (age moves on).
  absl::Duration interval = absl::Minutes(10);
};

// Thread-compatible: call Tick from one thread (housekeeping). `history`
// and `clock` outlive it.
class HistoryRetention {
 public:
  HistoryRetention(HistoryStore* history, const RetentionPolicy& policy,
                   core::Clock* clock = core::RealClock::Get());

  // Runs a pass when a sweep finished since the last one, or the interval
  // passed (the first call always runs one). Logs what a pass removed, or
  // why it failed (it is tried again on the same terms). Returns whether a
  // pass ran.
  bool Tick();
  // One pass now. Errors: those of HistoryStore::Prune.
  absl::StatusOr<PruneResult> RunNow();

 private:
  HistoryStore* const history_;
  const RetentionPolicy policy_;
  core::Clock* const clock_;
  absl::Time last_run_ = absl::InfinitePast();
  uint64_t last_finished_ = 0;
};

}  // namespace fabricpulse::coordinator
