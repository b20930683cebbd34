// How the CLI prints sweep results: format, bandwidth unit, raw numbers.
#pragma once

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace fabricpulse::client {

enum class OutputFormat { kTable, kJson, kCsv };

// GB/s = 1e9 bytes/s (nccl-tests); Gbps = 1e9 bits/s (DeepSpeed's default).
enum class BwUnit { kGBps, kGbps };

struct OutputOptions {
  OutputFormat format = OutputFormat::kTable;
  BwUnit unit = BwUnit::kGBps;
  // Table only: no unit rows, times in seconds and bandwidths in bytes per
  // second as plain numbers. JSON and CSV ignore it (their keys name units).
  bool raw = false;
};

// "table", "json" or "csv" (case-insensitive). Errors: INVALID_ARGUMENT
// "--output: unknown format 'x'; allowed: table, json, csv".
absl::StatusOr<OutputFormat> ParseOutputFormat(absl::string_view name);

// "GBps" or "Gbps", exact case (they differ only in case). Errors:
// INVALID_ARGUMENT "--bw-unit: unknown unit 'x'; allowed: GBps (1e9 bytes/s),
// Gbps (1e9 bits/s)".
absl::StatusOr<BwUnit> ParseBwUnit(absl::string_view name);

}  // namespace fabricpulse::client
