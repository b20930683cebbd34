// Builds the backend a worker was started with.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "daemon/backend/collective_backend.h"

namespace fabricpulse::worker {

struct BackendChoice {
  std::string name;  // "gloo" or "nccl"
  // Address the Gloo TCP device binds to and advertises.
  std::string host = "127.0.0.1";
  int gpu = -1;  // device index for NCCL
  // Bound on a sweep's GPU buffers, as a fraction of free device memory.
  double mem_fraction = 0.3;
};

// The backends this worker can run here, e.g. {"gloo", "nccl"}: "nccl" when
// the NCCL module loads (a build with NCCL, on a node with NCCL and the
// CUDA runtime). What `fabricpulse-worker --backends` prints
// (common::QueryWorkerBackends).
std::vector<std::string> BuiltInBackends();

// Errors: INVALID_ARGUMENT unknown backend; FAILED_PRECONDITION the backend
// is not built in, cannot be loaded here (with why) or has no device here.
absl::StatusOr<std::unique_ptr<backend::CollectiveBackend>> MakeBackend(
    const BackendChoice& choice);

}  // namespace fabricpulse::worker
