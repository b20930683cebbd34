// Why the coordinator aborts a sweep on an agent, carried as gRPC metadata
// on AgentService.Abort (the request message has no field for it). The agent
// does not count a worker it has to kill after an abort requested by an
// operator as a fault (fabricpulse_agent_worker_restarts_total); after a
// failure it does.
#pragma once

namespace fabricpulse::common {

enum class AbortCause {
  // A rank failed, stalled or was lost: a worker that does not return
  // from this abort is a fault.
  kFailure,
  // An operator asked (`fabricpulse abort`, or the sweep's client went
  // away), or the sweep yielded to a foreign GPU process (preempted):
  // ending work on request is not a fault.
  kRequest,
};

// Metadata key (lower case, as gRPC requires) and its value for kRequest;
// absent or any other value means kFailure.
inline constexpr char kAbortCauseKey[] = "fabricpulse-abort-cause";
inline constexpr char kAbortCauseRequest[] = "request";

}  // namespace fabricpulse::common
