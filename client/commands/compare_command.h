// `fabricpulse compare A B [--threshold PCT] [--output table|json|csv]
// [--bw-unit GBps|Gbps] [--fail-on-slower]`: two sweeps of the history side
// by side (client/output/sweep_compare.h says what is compared and what
// counts as beyond noise).
#pragma once

#include <string>

#include "absl/status/status.h"
#include "client/commands/coordinator_connection.h"

namespace fabricpulse::client {

struct CompareFlags {
  std::string a;
  std::string b;
  double threshold_percent = 5;  // (0, 100]
  std::string output = "table";
  std::string bw_unit = "GBps";
  bool fail_on_slower = false;
};

// Checks the flags without a coordinator. Errors: INVALID_ARGUMENT naming
// the flag and its allowed values.
absl::Status CheckCompareFlags(const CompareFlags& flags);

// Returns the exit code: 0; 5 with --fail-on-slower when a row is slower
// beyond noise; 2 bad flags or an unknown sweep id; 1 or 3 as for
// `results` (ReportCallError, ReportConnectError).
int RunCompareCommand(const CoordinatorTarget& coordinator,
                      const CompareFlags& flags);

}  // namespace fabricpulse::client
