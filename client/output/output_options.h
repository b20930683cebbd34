// How the CLI prints sweep results: format, bandwidth unit, raw numbers and
// which rank's time the table reports.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace fabricpulse::client {

enum class OutputFormat { kTable, kJson, kCsv };

// GB/s = 1e9 bytes/s (nccl-tests); Gbps = 1e9 bits/s (DeepSpeed's default).
enum class BwUnit { kGBps, kGbps };

// --time-across-ranks: which of the ranks' mean times the table's time
// column and bandwidths use (nccl-tests' -a: 1 avg, 2 min, 3 max; its
// default is avg, and so is ours). The coordinator's own figures (busbw,
// baselines, regressions, the gates) are always the slowest rank's (max).
enum class TimeAcrossRanks { kAvg, kMin, kMax };

struct OutputOptions {
  OutputFormat format = OutputFormat::kTable;
  // The table's (and --min-busbw's) unit: GB/s unless --bw-unit says.
  BwUnit unit = BwUnit::kGBps;
  // Whether --bw-unit was given: only then do JSON and CSV carry bandwidths
  // in `unit` (keys *_gigabytes_per_second / *_gigabits_per_second);
  // otherwise they use bytes per second (*_bytes_per_second).
  bool unit_given = false;
  // --raw: plain numbers in base units everywhere, --bw-unit ignored. The
  // table has no unit rows, times in seconds and bandwidths in bytes per
  // second; JSON and CSV carry bandwidths in bytes per second (their times
  // are always seconds).
  bool raw = false;
  TimeAcrossRanks time_across_ranks = TimeAcrossRanks::kAvg;
};

// "table", "json" or "csv" (case-insensitive). Errors: INVALID_ARGUMENT
// "--output: unknown format 'x'; allowed: table, json, csv".
absl::StatusOr<OutputFormat> ParseOutputFormat(absl::string_view name);

// "GBps" or "Gbps", exact case (they differ only in case). Errors:
// INVALID_ARGUMENT "--bw-unit: unknown unit 'x'; allowed: GBps (1e9 bytes/s),
// Gbps (1e9 bits/s)".
absl::StatusOr<BwUnit> ParseBwUnit(absl::string_view name);

// "avg", "min" or "max". Errors: INVALID_ARGUMENT naming
// --time-across-ranks and the allowed values.
absl::StatusOr<TimeAcrossRanks> ParseTimeAcrossRanks(absl::string_view name);
absl::string_view TimeAcrossRanksName(TimeAcrossRanks which);

// The options of the flags as typed: --output, --bw-unit ("" when not
// given: GBps, unit_given false), --raw and --time-across-ranks. Errors:
// those of the parsers above.
absl::StatusOr<OutputOptions> OutputOptionsFromFlags(
    absl::string_view output, absl::string_view bw_unit, bool raw,
    absl::string_view time_across_ranks);

}  // namespace fabricpulse::client
