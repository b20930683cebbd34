// `fabricpulse local --backend`: which backend the local agents run. The CLI
// links neither CUDA nor NCCL: it counts GPUs with NVML and asks the worker
// binary whether it has NCCL.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace fabricpulse::client {

struct LocalBackendRequest {
  std::string backend = "auto";  // auto, nccl or gloo
  int agents = 1;
  int ranks = 2;  // per agent
  // GPUs CUDA would see here (nvml::VisibleGpuCount).
  int visible_gpus = 0;
  // The backends fabricpulse-worker has built in
  // (common::QueryWorkerBackends). Called at most once, and only when the
  // backend is nccl, or auto with a GPU visible.
  std::function<absl::StatusOr<std::vector<std::string>>()> worker_backends;
};

// "gloo" or "nccl". `auto` is NCCL when a GPU is visible and the worker has
// NCCL built in, else Gloo. NCCL runs one GPU per rank: agents x ranks GPUs.
// Errors: INVALID_ARGUMENT NCCL (asked for, or chosen by auto) with too few
// visible GPUs, or nccl asked for and not built into the worker;
// FAILED_PRECONDITION the worker cannot be asked (it does not run).
absl::StatusOr<std::string> ResolveLocalBackend(
    const LocalBackendRequest& request);

}  // namespace fabricpulse::client
