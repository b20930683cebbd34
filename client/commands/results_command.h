// `fabricpulse results [--sweep ID | --last N] [--output table|json|csv]`:
// the coordinator's sweep history.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "client/commands/coordinator_connection.h"
#include "client/output/output_options.h"

namespace fabricpulse::client {

struct ResultsFlags {
  std::string sweep_id;  // one sweep, with every result
  int last = 10;         // otherwise the newest N sweeps
  std::string output = "table";
  std::string bw_unit;  // "": as for sweep (sweep_command.h)
  bool raw = false;
  std::string time_across_ranks = "avg";
};

// Checks --output, --bw-unit and --time-across-ranks. Errors: INVALID_ARGUMENT
// naming the flag and what is allowed.
absl::Status CheckResultsFlags(const ResultsFlags& flags);

// Returns the exit code.
int RunResultsCommand(const CoordinatorTarget& coordinator,
                      const ResultsFlags& flags);

}  // namespace fabricpulse::client
