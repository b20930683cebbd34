// One call to many agents, waited for as a whole with one deadline:
// the coordinator's Describe before a sweep, its Abort after a failure and
// its flight-record collection. No thread per agent: the calls run on the
// clients' transport, and the caller waits on one condition.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "daemon/coordinator/agent_client.h"
#include "daemon/core/clock.h"
#include "fabricpulse/v1/types.pb.h"

namespace fabricpulse::coordinator {

// Describe calls in flight at once: each member's `timeout` runs from its
// own call, not from the fan-out's start, so that a fleet of thousands is
// not timed out by its own queue (16,384 simulated agents asked at once on
// 2 cores: some did not answer within 3 s).
inline constexpr size_t kDescribeWindow = 256;

// Each answer is in the order of `agents`. An agent that has not answered
// within `timeout` of its call gets DEADLINE_EXCEEDED (its late answer is
// dropped). DescribeAll keeps at most kDescribeWindow calls in flight and
// blocks the calling thread for at most `timeout` per kDescribeWindow
// agents (one `timeout` up to 256 agents); AbortAll and FlightRecordsAll
// call every agent at once and block for at most `timeout`. Thread-safe.
std::vector<absl::StatusOr<v1::AgentInfo>> DescribeAll(
    AgentClients& clients, const std::vector<v1::AgentInfo>& agents,
    absl::Duration timeout, core::Clock* clock);
// `cause`: why (daemon/common/abort_cause.h).
std::vector<absl::Status> AbortAll(AgentClients& clients,
                                   const std::vector<v1::AgentInfo>& agents,
                                   const std::string& comm_id,
                                   common::AbortCause cause,
                                   absl::Duration timeout, core::Clock* clock);
std::vector<absl::StatusOr<v1::AgentFlightRecordsResponse>> FlightRecordsAll(
    AgentClients& clients, const std::vector<v1::AgentInfo>& agents,
    const std::string& sweep_id, absl::Duration timeout, core::Clock* clock);

}  // namespace fabricpulse::coordinator
