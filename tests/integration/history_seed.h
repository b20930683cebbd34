// Seeds a real coordinator's history with copies of one of its sweeps, for
// integration tests of baselines: the verdicts stay the real coordinator's.
#pragma once

#include <functional>
#include <string>

#include "absl/time/time.h"
#include "daemon/coordinator/store/history_store.h"

namespace fabricpulse::testing {

struct SeedOptions {
  int copies = 5;
  // Every step's time is multiplied by it (bandwidths divided by it).
  double time_factor = 1;
  // Copy i starts at first_start + i x spacing (and finishes 1 s later).
  absl::Time first_start;
  absl::Duration spacing = absl::Seconds(1);
  // Applied to each copy's record (its id "TAG-i" already set).
  std::function<void(coordinator::SweepRecord&)> edit;
};

// Copies succeeded sweep `id` of the history file `db` as succeeded sweeps
// "`tag`-0", "`tag`-1", ... (fails the test on any error).
void SeedHistoryCopies(const std::string& db, const std::string& id,
                       const std::string& tag, const SeedOptions& options);

}  // namespace fabricpulse::testing
