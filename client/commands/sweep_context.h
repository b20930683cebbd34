// What `sweep` and `results` ask the coordinator about a sweep beyond its
// events (result_printer.h's SweepContext).
#pragma once

#include <string>

#include "client/output/result_printer.h"
#include "fabricpulse/v1/coordinator.grpc.pb.h"

namespace fabricpulse::client {

// How long each of FetchSweepContext's calls may take.
inline constexpr int kContextCallSeconds = 5;

// The history's record of `sweep_id` (GetSweep) and, when `with_pids`, the
// pid of the worker that runs each rank of its rank map now (ListAgents:
// the worker at the rank's node and local index). A call that fails leaves
// its part unknown (no summary, no pids): the output then says less, never
// something guessed. Each call is bounded by kContextCallSeconds.
SweepContext FetchSweepContext(v1::CoordinatorService::Stub& stub,
                               const std::string& sweep_id,
                               const v1::SweepStarted& started, bool with_pids);

}  // namespace fabricpulse::client
