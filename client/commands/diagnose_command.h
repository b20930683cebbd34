// `fabricpulse diagnose [--sweep ID] [--output table|json]`: the state of a
// sweep (running with no stall, stalled, failed, aborted by request, ...)
// and, when something is wrong, which rank, GPU and node it waits for, from
// every member's flight recorder.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "client/commands/coordinator_connection.h"

namespace fabricpulse::client {

// Checks --output (table or json). Errors: INVALID_ARGUMENT naming the flag
// and what is allowed.
absl::Status CheckDiagnoseOutput(const std::string& output);

// Returns the exit code: 0 a diagnosis was printed, whatever it says (the
// state is in the output); 1 the coordinator could not diagnose (no such
// sweep, none to diagnose, a member lost); 2 bad flags (an unknown format,
// or csv, which diagnose does not print); 3 coordinator unreachable.
int RunDiagnoseCommand(const CoordinatorTarget& coordinator,
                       const std::string& sweep_id, const std::string& output);

}  // namespace fabricpulse::client
