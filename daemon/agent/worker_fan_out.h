// One call to several local workers at once, waited for as a whole with one
// deadline on the agent's clock: the abort after a failure or on the
// coordinator's request, and the flight-record collection for a diagnosis.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "absl/time/time.h"
#include "daemon/agent/worker_client.h"
#include "daemon/core/clock.h"
#include "fabricpulse/v1/types.pb.h"

namespace fabricpulse::agent {

// Tells every ready worker to abort `comm_id` and waits up to `timeout` for
// their answers; a worker that does not answer is logged. Thread-safe.
void AbortLocalWorkers(LocalWorkers& workers, const std::string& comm_id,
                       absl::Duration timeout, core::Clock* clock);

// The flight records of `sweep_id` from each (local index, rank) of
// `ranks`, in that order, waited for up to `timeout`. A worker that is not
// running, or does not answer in time, is reported unreachable with why
// (its kill reason when the agent killed it).
std::vector<v1::RankFlightRecords> CollectFlightRecords(
    LocalWorkers& workers, const std::vector<std::pair<int, int>>& ranks,
    const std::string& sweep_id, absl::Duration timeout, core::Clock* clock);

}  // namespace fabricpulse::agent
