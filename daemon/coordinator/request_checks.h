// Checks that coordinator handlers run on a request before acting on it,
// kept out of the handlers so that they are pure and fuzzed
// (tests/fuzz/coordinator_requests_fuzzer.cc). Checks that need state stay
// with the state's owner (Membership::Register, RendezvousStore::Set,
// SweepPlanner::Plan).
//
// Thread-safety: pure functions.
#pragma once

#include "absl/status/statusor.h"
#include "fabricpulse/v1/coordinator.pb.h"

namespace fabricpulse::coordinator {

// ListSweeps lists the newest 20 sweeps when `last` is unset (0).
inline constexpr int kDefaultListSweeps = 20;
inline constexpr int kMaxListSweeps = 1000;

// How many sweeps ListSweeps returns. Errors: INVALID_ARGUMENT "last: ..."
// outside 1 to kMaxListSweeps.
absl::StatusOr<int> ListSweepsLimit(const v1::ListSweepsRequest& request);

}  // namespace fabricpulse::coordinator
