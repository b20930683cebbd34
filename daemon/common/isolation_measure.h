// The measurements of an isolation (core/isolation.h) read from the sweeps
// that made them: shared by `fabricpulse isolate` and the coordinator's own
// isolations (coordinator/auto_isolator.h).
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "daemon/core/isolation.h"
#include "fabricpulse/v1/types.pb.h"

namespace fabricpulse::common {

// A collective sweep `sweep_id` that ended with `status` and `results`:
// ok with the first result's busbw, or failed with why.
core::SetMeasurement SetMeasurementOf(
    const std::string& sweep_id, const absl::Status& status,
    const std::vector<v1::StepResult>& results);

// A pairwise sweep over `nodes`: each network pair it measured (0 when its
// data was wrong); when the sweep failed, every node pair also counts once
// as failed (0), since a failed round says nothing of the pairs it did not
// reach.
std::vector<core::NodePairMeasurement> NodePairsOf(
    const std::vector<std::string>& nodes, const absl::Status& status,
    const std::vector<v1::StepResult>& results);

}  // namespace fabricpulse::common
