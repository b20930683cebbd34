// `fabricpulse report [--sweep ID | --last N | --plan P --since 7d] -o
// FILE.html`: one self-contained HTML page of charts (client/report/).
#pragma once

#include <string>

#include "absl/status/status.h"
#include "client/commands/coordinator_connection.h"

namespace fabricpulse::client {

struct ReportFlags {
  std::string sweep_id;
  int last = 0;  // 0: not given (the newest sweep)
  std::string plan;
  std::string since;  // with --plan; empty: 7d
  std::string output_file;
};

// Checks the flags without a coordinator: -o given, its folder a writable
// folder; --last in 1..20; --since well-formed and only with --plan; at
// most one of --sweep, --last, --plan. Errors: INVALID_ARGUMENT naming the
// flag and what is allowed.
absl::Status CheckReportFlags(const ReportFlags& flags);

// Reads the sweeps, writes the page to a temporary file beside -o and
// renames it over -o, so -o is never left half-written, and nothing is
// written on any error. Returns the exit code: 0 written; 2 bad flags, an
// unknown sweep id or nothing to draw; 3 the coordinator unreachable or
// refusing; 1 the file could not be written or another call failure.
int RunReportCommand(const CoordinatorTarget& coordinator,
                     const ReportFlags& flags);

}  // namespace fabricpulse::client
