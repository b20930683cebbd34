// `fabricpulse plans [--output table|json|csv]`: the plans of the
// coordinator's config file (ListPlans), each with the sweep it runs and on
// which members, and the regression settings that judge them.
#pragma once

#include <string>

#include "client/commands/coordinator_connection.h"
#include "client/output/output_options.h"
#include "fabricpulse/v1/coordinator.pb.h"

namespace fabricpulse::client {

// The listing in `format`:
// - table: one row per plan (PLAN, OPS, SIZES, DTYPE, REDOP, ITERS, WARMUP,
//   CHECK, PLACEMENT, TIMEOUT, NODES, ISOLATE_ON, CAMPAIGN: the campaign
//   settings, "-" for a one-sweep plan; columns as wide as their values) and a
//   line with the regression settings;
// - json: the ListPlansResponse in protobuf's JSON mapping (proto field
//   names, defaults printed);
// - csv: a header and one line per plan; ops and nodes separated by ';',
//   sizes in bytes, durations in seconds, max_bytes_auto 0 when off,
//   tolerance/min_iters/max_iters/step_time_cap_s empty unless iters is
//   auto.
std::string FormatPlans(const v1::ListPlansResponse& plans,
                        OutputFormat format);

// Returns the exit code (2 for a bad --output, before connecting; 3
// unreachable or refused). Says on stderr when plans were left out.
int RunPlansCommand(const CoordinatorTarget& coordinator,
                    const std::string& output);

}  // namespace fabricpulse::client
