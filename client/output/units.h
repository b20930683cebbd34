// Unit conversion and number formatting shared by the result printers.
#pragma once

#include <string>

#include "absl/strings/string_view.h"
#include "client/output/output_options.h"

namespace fabricpulse::client {

// The flag spelling: "GBps" or "Gbps" (JSON's "bw_unit").
absl::string_view BwUnitName(BwUnit unit);
// The column-header spelling: "GB/s" or "Gbps".
absl::string_view BwUnitLabel(BwUnit unit);
// Bytes per second in `unit`: GB/s = bytes / 1e9, Gbps = bytes * 8 / 1e9.
double ToBwUnit(BwUnit unit, double bytes_per_second);

// The unit JSON and CSV carry bandwidths in, as their keys spell it:
// "bytes_per_second" (the default, and always with --raw),
// "gigabytes_per_second" (--bw-unit GBps: 1e9 bytes/s) or
// "gigabits_per_second" (--bw-unit Gbps: 1e9 bits/s).
absl::string_view MachineBwUnit(const OutputOptions& options);
// Bytes per second in MachineBwUnit(options).
double ToMachineBw(const OutputOptions& options, double bytes_per_second);

// Seconds to microseconds.
inline double ToMicros(double seconds) { return seconds * 1e6; }

// A number for machine-readable output: up to 10 significant digits, no
// trailing zeros ("10.48576", "1e-05"). Requires a finite value.
std::string FormatNumber(double value);

// nccl-tests' time column: "%.0f" from 10000 us, "%.1f" from 100 us, else
// "%.2f".
std::string FormatTableMicros(double micros);

}  // namespace fabricpulse::client
