// The persistence rule of core/regression_persistence.h over a sweep's
// judged results: which regressions the confirmed series and alert carry.
#pragma once

#include <functional>
#include <vector>

#include "fabricpulse/v1/types.pb.h"

namespace fabricpulse::coordinator {

// One flag per result, in order: the result regressed (with a baseline) and
// either `previously_regressed(result)` (the same step of the plan's
// previous succeeded sweep regressed) or it is one of at least
// core::kNeighbourRun consecutive regressed sizes of its op, dtype and
// placement.
std::vector<bool> ConfirmedRegressions(
    const std::vector<v1::StepResult>& results,
    const std::function<bool(const v1::StepResult&)>& previously_regressed);

}  // namespace fabricpulse::coordinator
