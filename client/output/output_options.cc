#include "client/output/output_options.h"

#include <string>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace fabricpulse::client {

absl::StatusOr<OutputFormat> ParseOutputFormat(absl::string_view name) {
  const std::string lower = absl::AsciiStrToLower(name);
  if (lower == "table") return OutputFormat::kTable;
  if (lower == "json") return OutputFormat::kJson;
  if (lower == "csv") return OutputFormat::kCsv;
  return absl::InvalidArgumentError(absl::StrCat(
      "--output: unknown format '", name, "'; allowed: table, json, csv"));
}

absl::StatusOr<BwUnit> ParseBwUnit(absl::string_view name) {
  // Case matters: "GBps" and "Gbps" differ by a factor of 8.
  if (name == "GBps") return BwUnit::kGBps;
  if (name == "Gbps") return BwUnit::kGbps;
  return absl::InvalidArgumentError(
      absl::StrCat("--bw-unit: unknown unit '", name,
                   "'; allowed: GBps (1e9 bytes/s), Gbps (1e9 bits/s)"));
}

}  // namespace fabricpulse::client
