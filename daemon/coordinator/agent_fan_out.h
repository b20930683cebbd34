// One call to many agents at once, waited for as a whole with one deadline:
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

// Each answer is in the order of `agents`. An agent that has not answered
// when `timeout` has passed on `clock` gets DEADLINE_EXCEEDED (its late
// answer is dropped). Thread-safe; blocks the calling thread for at most
// `timeout`.
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
