// The coordinator's isolation after a sweep (SweepSummary.isolation), as
// `fabricpulse results SWEEP_ID` prints it: lines for the table, an object
// for the JSON document (docs/json.md, key "isolation").
#pragma once

#include <string>

#include "client/output/json_writer.h"
#include "fabricpulse/v1/coordinator.pb.h"

namespace fabricpulse::client {

// "# isolation: node node-2 (22 measurements: all node-0,...: 0.0123 GB/s,
// ...); after a regression of all_reduce 524288 B\n# isolation summary:
// ...\n".
std::string IsolationLines(const v1::SweepIsolation& isolation);

// {"cause", "op", "bytes", "verdict", "culprits", "summary", "started_at",
// "finished_at", "rounds": [{"role", "nodes", "ok",
// "busbw_bytes_per_second", "error", "sweep_id"}]}.
void WriteIsolation(JsonWriter& json, const v1::SweepIsolation& isolation);

}  // namespace fabricpulse::client
