// What `fabricpulse report` draws, read from the coordinator's history with
// the calls `results` uses (ListSweeps, GetSweep), every read bounded.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "client/report/report_page.h"
#include "fabricpulse/v1/coordinator.grpc.pb.h"

namespace fabricpulse::client::report {

// --last: sweeps drawn in full at most.
inline constexpr int kMaxReportSweeps = 20;
// --plan: summaries read (ListSweeps' own bound, newest first), and of the
// plan's sweeps in the window, the newest read in full for the trends.
inline constexpr int kMaxListedSweeps = 1000;
inline constexpr int kMaxTrendSweeps = 100;
// Step results read at most over all sweeps of one report (~3.4 KB each
// in memory: a few hundred MB at most); the sweeps past it are not read.
inline constexpr int kMaxReportSteps = 100000;
// --since: (0, 366 days].
inline constexpr absl::Duration kMaxSince = absl::Hours(24 * 366);

// Exactly one way of choosing (the flags exclude each other): a sweep id,
// the newest `last` sweeps, or a plan's sweeps started since now - since.
struct ReportSelection {
  std::string sweep_id;
  int last = 0;  // 1..kMaxReportSweeps
  std::string plan;
  absl::Duration since = absl::Hours(24 * 7);
};

// --since: "7d", "36h", "90m", "1h30m" or seconds ("3600"). Errors:
// INVALID_ARGUMENT naming --since, the value and the range.
absl::StatusOr<absl::Duration> ParseSince(absl::string_view text);

// Reads the selection, each call with a 30 s deadline. A sweep deleted
// between the list and its read is skipped, with a note. Errors: NOT_FOUND
// no sweep of that id; FAILED_PRECONDITION nothing to draw (no sweeps, or
// none of the plan in the window); otherwise the coordinator's status
// (UNAVAILABLE, PERMISSION_DENIED, ...). `now` is the end of the window.
absl::StatusOr<ReportContent> LoadReport(
    v1::CoordinatorService::StubInterface& stub,
    const ReportSelection& selection, absl::Time now);

}  // namespace fabricpulse::client::report
