// The versioned JSON document of `sweep --output json` and `results
// --output json` (schema "fabricpulse.sweeps/v1", docs/json.md,
// docs/json/sweeps.v1.schema.json):
//   {"schema", "tool": {"name", "version", "commit", "dirty"},
//    "bandwidth_unit", "sweeps": [SWEEP...]}
// with one SWEEP per sweep. Thread-safety: pure functions.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "client/output/output_options.h"
#include "fabricpulse/v1/coordinator.pb.h"

namespace fabricpulse::client {

inline constexpr char kSweepsSchema[] = "fabricpulse.sweeps/v1";

struct SweepDocument {
  // The sweep's metadata. Empty text (trigger, backend_version, topology,
  // error, straggler) and zero times are unknown or none: null.
  v1::SweepSummary sweep;
  // Absent: finished - started when both are known, else null.
  std::optional<double> duration_seconds;
  // Worker pid by rank, when known (a sweep that runs now).
  std::map<int, int> pids;
  // Absent in a listing (`results` without --sweep): "steps" is then null
  // and step_count / regressions come from `sweep`.
  std::optional<std::vector<v1::StepResult>> steps;
};

// The whole document, newline-terminated. Bandwidths in
// MachineBwUnit(options), named in each key and in "bandwidth_unit".
std::string SweepsJson(const std::vector<SweepDocument>& sweeps,
                       const OutputOptions& options);

// `unix_seconds` as RFC 3339 in UTC with milliseconds
// ("2026-12-01T19:00:00.123Z"); "" for 0 (unknown).
std::string Rfc3339(double unix_seconds);

}  // namespace fabricpulse::client
