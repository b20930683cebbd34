// `fabricpulse agents [--output table|json|csv]`: the registered agents and
// their workers.
#pragma once

#include <string>

#include "client/commands/coordinator_connection.h"
#include "client/output/output_options.h"
#include "fabricpulse/v1/coordinator.pb.h"

namespace fabricpulse::client {

// The listing in `format`:
// - table: one row per agent (NODE, STATE, ADDRESS, BACKEND, RANKS, READY,
//   RESTARTS, HEARTBEAT, BUSY-GPUS), under it an indented line per GPU
//   that reports its model, bus id or NVLink peers ("  gpu 0: NVIDIA
//   H200, bus 00000000:18:00.0, nvlink 1,2") and one for the NICs ("  nics:
//   ib0 infiniband up 400 Gb/s, eth0 ethernet down"), one for its --labels
//   ("  labels: pool=train,rack=r1"), and a summary line;
// - json: the ListAgentsResponse in protobuf's JSON mapping, field names as
//   in the .proto (snake_case), defaults printed (64-bit integers are
//   strings, as that mapping has them);
// - csv: a header and one line per agent, busy GPUs separated by ';', then
//   gpu_models (distinct, ';'), nvlink_peers (GPU:PEER+PEER;...) and nics
//   (NAME=STATE;...).
std::string FormatAgents(const v1::ListAgentsResponse& agents,
                         OutputFormat format);

// Returns the exit code (2 for a bad --output, before connecting).
int RunAgentsCommand(const CoordinatorTarget& coordinator,
                     const std::string& output = "table");

}  // namespace fabricpulse::client
