#include "client/commands/compare_command.h"

#include <cmath>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "client/commands/exit_codes.h"
#include "client/commands/sweep_collect.h"
#include "client/output/output_options.h"
#include "client/output/sweep_compare.h"

namespace fabricpulse::client {

absl::Status CheckCompareFlags(const CompareFlags& flags) {
  if (flags.a.empty() || flags.b.empty()) {
    return absl::InvalidArgumentError(
        "compare: two sweep ids are needed (A B; `fabricpulse results` lists "
        "them)");
  }
  if (!(flags.threshold_percent > 0 && flags.threshold_percent <= 100)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--threshold: ", flags.threshold_percent,
                     " is out of range; allowed: more than 0 up to 100 (%)"));
  }
  if (auto format = ParseOutputFormat(flags.output); !format.ok()) {
    return format.status();
  }
  return ParseBwUnit(flags.bw_unit).status();
}

int RunCompareCommand(const CoordinatorTarget& coordinator,
                      const CompareFlags& flags) {
  if (absl::Status bad = CheckCompareFlags(flags); !bad.ok()) {
    PrintError(std::string(bad.message()));
    return kExitBadInput;
  }
  OutputOptions output;
  output.format = *ParseOutputFormat(flags.output);
  output.unit = *ParseBwUnit(flags.bw_unit);
  auto stub = ConnectCoordinator(coordinator);
  if (!stub.ok()) return ReportConnectError(stub.status());
  v1::GetSweepResponse a, b;
  if (int rc = FetchStoredSweep(**stub, "compare", flags.a, &a); rc != kExitOk)
    return rc;
  if (int rc = FetchStoredSweep(**stub, "compare", flags.b, &b); rc != kExitOk)
    return rc;
  const SweepComparison comparison =
      CompareSweeps(a, b, flags.threshold_percent / 100);
  PrintComparison(comparison, output, std::cout);
  std::cout.flush();
  if (flags.fail_on_slower && comparison.slower > 0) return kExitGateFailed;
  return kExitOk;
}

}  // namespace fabricpulse::client
