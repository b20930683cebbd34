#include "client/output/units.h"

#include "absl/strings/str_format.h"

namespace fabricpulse::client {

absl::string_view BwUnitName(BwUnit unit) {
  return unit == BwUnit::kGbps ? "Gbps" : "GBps";
}

absl::string_view BwUnitLabel(BwUnit unit) {
  return unit == BwUnit::kGbps ? "Gbps" : "GB/s";
}

double ToBwUnit(BwUnit unit, double bytes_per_second) {
  const double bytes =
      unit == BwUnit::kGbps ? bytes_per_second * 8 : bytes_per_second;
  return bytes / 1e9;
}

absl::string_view MachineBwUnit(const OutputOptions& options) {
  if (options.raw || !options.unit_given) return "bytes_per_second";
  return options.unit == BwUnit::kGbps ? "gigabits_per_second"
                                       : "gigabytes_per_second";
}

double ToMachineBw(const OutputOptions& options, double bytes_per_second) {
  if (options.raw || !options.unit_given) return bytes_per_second;
  return ToBwUnit(options.unit, bytes_per_second);
}

std::string FormatNumber(double value) {
  // 10 digits hide the noise of seconds * 1e6 (100.00000000000001) and keep
  // more precision than any timer here has. %g output is valid JSON.
  return absl::StrFormat("%.10g", value);
}

std::string FormatTableMicros(double micros) {
  if (micros >= 10000.0) return absl::StrFormat("%.0f", micros);
  if (micros >= 100.0) return absl::StrFormat("%.1f", micros);
  return absl::StrFormat("%.2f", micros);
}

}  // namespace fabricpulse::client
