// `fabricpulse isolate`: finds the node(s) or link(s) behind a slow or
// failing collective by bisection over node sets (core/isolation.h), each
// set measured by a sweep of one op at one size, then a pairwise matrix of
// the suspects; prints every round as evidence.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "client/commands/coordinator_connection.h"

namespace fabricpulse::client {

// At least two: one number is a suspect, never a culprit.
inline constexpr int kMinIsolateRepeats = 2;

struct IsolateFlags {
  std::string op = "all_reduce";
  std::string bytes = "16M";
  // The nodes to search (default: every alive agent).
  std::vector<std::string> nodes;
  int iters = 10;
  int warmup = 2;
  std::string timeout = "30s";
  // Measurements of each node set and runs of the pairwise check
  // (kMinIsolateRepeats..core::kMaxIsolateRepeats).
  int repeats = 3;
  std::string output = "table";  // or json
  std::string progress = "auto";
};

// Checks every flag without a coordinator. Errors: INVALID_ARGUMENT naming
// the flag and what is allowed.
absl::Status CheckIsolateFlags(const IsolateFlags& flags);

// Exit code: 0 nothing stands out; 1 culprits named (the line names them);
// 2 bad flags; 3 unreachable; 4 busy.
int RunIsolateCommand(const CoordinatorTarget& coordinator,
                      const IsolateFlags& flags);

}  // namespace fabricpulse::client
