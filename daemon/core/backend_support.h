// What each backend can run, so that a spec is refused before any rank
// starts rather than half-way through a sweep.
#pragma once

#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "daemon/core/sweep_spec.h"

namespace fabricpulse::core {

// The gloo backend's largest host buffers per rank (its Reserve refuses
// more).
inline constexpr uint64_t kGlooMaxBufferBytes = 16ull << 30;

// The most buffer memory one rank of `backend` allocates whatever memory is
// free: kGlooMaxBufferBytes for "gloo", no limit (UINT64_MAX) otherwise.
uint64_t BackendBufferLimit(absl::string_view backend);

// Errors: INVALID_ARGUMENT naming the field (dtype, graph, ...) the backend
// ("gloo" or "nccl") cannot run, and what it can.
absl::Status CheckBackendSupport(absl::string_view backend,
                                 const ResolvedSpec& spec,
                                 const SweepSpec& raw);

}  // namespace fabricpulse::core
