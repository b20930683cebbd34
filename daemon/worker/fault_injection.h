// Faults a worker injects on purpose, so that the detectors built on its
// measurements can be tested end to end against real processes. Off unless
// set; never set in production.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace fabricpulse::worker {

// The rank with this global rank (in any sweep) waits `delay` before it
// enters each timed op (or every `every`-th: the 1st, 1 + every-th, ...): a
// slow host, the straggler a synchronous collective hides; with `every` > 1
// also an outlier iteration for the percentiles. Set with
// FABRICPULSE_FAULT_LATE_RANK=RANK:DURATION[:EVERY] (e.g. "3:5ms" or
// "0:2ms:10") in the agent's environment, which its workers inherit.
struct LateRankFault {
  int rank = -1;  // -1: off
  absl::Duration delay;
  int every = 1;
};

inline constexpr char kLateRankFaultEnv[] = "FABRICPULSE_FAULT_LATE_RANK";

// "" is off. Errors: INVALID_ARGUMENT naming the variable and the allowed
// form (RANK >= 0, 0 < DURATION <= 10s, EVERY >= 1).
absl::StatusOr<LateRankFault> ParseLateRankFault(const std::string& value);

}  // namespace fabricpulse::worker
