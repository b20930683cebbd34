// `fabricpulse matrix`: every pair of ranks, bidirectional sendrecv in
// rounds of disjoint pairs (the pairwise op), reported per pair and grouped
// by node pair, with the pairs far below their path class flagged.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "client/commands/coordinator_connection.h"

namespace fabricpulse::client {

struct MatrixFlags {
  std::string bytes = "32M";  // per pair and direction
  std::vector<std::string> nodes;
  int iters = 10;
  int warmup = 2;
  std::string timeout = "30s";
  std::string output = "table";
  std::string bw_unit = "GBps";
  // Print the matrix of this stored sweep instead of running one.
  std::string sweep_id;
  // Exit 5 when any pair is flagged.
  bool fail_on_flagged = false;
  // Measure again when pairs are flagged; keep only those flagged twice.
  bool confirm = true;
  std::string progress = "auto";
};

// Checks every flag without a coordinator (and, with `nranks` > 1 and no
// --nodes, the spec for that many ranks). Errors: INVALID_ARGUMENT naming
// the flag and what is allowed.
absl::Status CheckMatrixFlags(const MatrixFlags& flags, int nranks = 0);

// Exit code: 0 done; 1 the sweep failed or a pair's data was wrong; 2 bad
// flags or an unknown --sweep; 3 unreachable; 4 busy; 5 --fail-on-flagged
// and a pair was flagged.
int RunMatrixCommand(const CoordinatorTarget& coordinator,
                     const MatrixFlags& flags);

}  // namespace fabricpulse::client
