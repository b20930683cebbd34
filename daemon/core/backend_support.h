// What each backend can run, so that a spec is refused before any rank
// starts rather than half-way through a sweep.
#pragma once

#include "absl/strings/string_view.h"

#include "absl/status/status.h"
#include "daemon/core/sweep_spec.h"

namespace fabricpulse::core {

// Errors: INVALID_ARGUMENT naming the field (dtype, graph, ...) the backend
// ("gloo" or "nccl") cannot run, and what it can.
absl::Status CheckBackendSupport(absl::string_view backend,
                                 const ResolvedSpec& spec,
                                 const SweepSpec& raw);

}  // namespace fabricpulse::core
