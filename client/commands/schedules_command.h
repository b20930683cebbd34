// `fabricpulse schedules [--output table|json|csv]`: the cron schedules of
// the coordinator's config (ListSchedules) as its scheduler holds them: the
// next firing, whether a firing waits (and why), and the last run.
#pragma once

#include <string>

#include "client/commands/coordinator_connection.h"
#include "client/output/output_options.h"
#include "fabricpulse/v1/coordinator.pb.h"

namespace fabricpulse::client {

// The listing in `format`:
// - table: one row per schedule (SCHEDULE, PLAN, CRON, NEXT (in the
//   schedule's zone), BUSY-GPUS ("wait" or "run": allow_busy_gpus), STATE,
//   LAST-SWEEP, LAST-STATUS, LAST-STARTED (UTC)); STATE is "-" (nothing
//   due), "due" (a firing runs or is about to) or "waiting: GPUs busy" /
//   "waiting: members busy"; "-" where there is no last run;
// - json: the ListSchedulesResponse in protobuf's JSON mapping;
// - csv: a header and one line per schedule, times in Unix seconds (0: none),
//   last_* empty when there is no last run.
std::string FormatSchedules(const v1::ListSchedulesResponse& schedules,
                            OutputFormat format);

// Returns the exit code (2 for a bad --output, before connecting; 3
// unreachable or refused). Says on stderr when schedules were left out.
int RunSchedulesCommand(const CoordinatorTarget& coordinator,
                        const std::string& output);

}  // namespace fabricpulse::client
