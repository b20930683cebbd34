// What the fleet simulator's process tests share: the built binaries'
// paths, fleet_sim's ready file and a small sweep request (bounded waits:
// testing::Eventually).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fabricpulse/v1/coordinator.pb.h"

namespace fabricpulse::scale {

// FABRICPULSE_BIN_DIR/name.
std::string Bin(const std::string& name);

// Reads "ready=N" from a fleet_sim ready file; -1 while there is none.
int ReadyCount(const std::string& path);

// An all_reduce sweep over `nodes`, out of place, `min_bytes` to
// `max_bytes` by 2, one warm-up and one timed iteration.
v1::SweepRequest AllReduceRequest(const std::vector<std::string>& nodes,
                                  uint64_t min_bytes, uint64_t max_bytes);

}  // namespace fabricpulse::scale
