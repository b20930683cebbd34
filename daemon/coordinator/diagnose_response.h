// Between diagnose's core verdicts and the wire: the sweep's facts from the
// history, the stored diagnosis (JSON) back into core form, and the
// DiagnoseResponse.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "daemon/coordinator/store/history_store.h"
#include "daemon/core/diagnosis.h"
#include "daemon/core/sweep_diagnosis.h"
#include "fabricpulse/v1/coordinator.pb.h"

namespace fabricpulse::coordinator {

// The facts of a recorded sweep: its state (an unknown status reads as
// failed), times, error, steps done (its stored results) and its steps,
// expanded again from its stored spec for its nranks (none when the spec
// no longer expands). The stall bounds are left unbounded.
core::SweepFacts FactsFromHistory(const SweepWithSteps& sweep);

// A diagnosis stored as core::Diagnosis::ToJson. Errors: INVALID_ARGUMENT
// when it is not such a document (naming what is wrong).
absl::StatusOr<core::Diagnosis> ParseStoredDiagnosis(const std::string& json);

// The response for `d`; `json` goes into the response's json field.
v1::DiagnoseResponse ToDiagnoseResponse(const std::string& sweep_id,
                                        const core::SweepDiagnosis& d,
                                        const std::string& json);

// Adds to `response` each rank whose stored results carry wrong elements
// (StepRecord::wrong_by_rank), in rank order.
void AddWrongData(const SweepWithSteps& sweep, v1::DiagnoseResponse& response);

}  // namespace fabricpulse::coordinator
