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

absl::StatusOr<TimeAcrossRanks> ParseTimeAcrossRanks(absl::string_view name) {
  if (name == "avg") return TimeAcrossRanks::kAvg;
  if (name == "min") return TimeAcrossRanks::kMin;
  if (name == "max") return TimeAcrossRanks::kMax;
  return absl::InvalidArgumentError(
      absl::StrCat("--time-across-ranks: unknown value '", name,
                   "'; allowed: avg (the ranks' mean, nccl-tests' default), "
                   "min (the fastest rank), max (the slowest rank)"));
}

absl::string_view TimeAcrossRanksName(TimeAcrossRanks which) {
  switch (which) {
    case TimeAcrossRanks::kMin:
      return "min";
    case TimeAcrossRanks::kMax:
      return "max";
    case TimeAcrossRanks::kAvg:
      break;
  }
  return "avg";
}

absl::StatusOr<OutputOptions> OutputOptionsFromFlags(
    absl::string_view output, absl::string_view bw_unit, bool raw,
    absl::string_view time_across_ranks) {
  OutputOptions options;
  absl::StatusOr<OutputFormat> format = ParseOutputFormat(output);
  if (!format.ok()) return format.status();
  options.format = *format;
  if (!bw_unit.empty()) {
    absl::StatusOr<BwUnit> unit = ParseBwUnit(bw_unit);
    if (!unit.ok()) return unit.status();
    options.unit = *unit;
    options.unit_given = true;
  }
  options.raw = raw;
  absl::StatusOr<TimeAcrossRanks> which =
      ParseTimeAcrossRanks(time_across_ranks);
  if (!which.ok()) return which.status();
  options.time_across_ranks = *which;
  return options;
}

}  // namespace fabricpulse::client
