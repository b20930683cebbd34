// Which backend an agent runs and on which devices.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "daemon/agent/agent_config.h"
#include "daemon/nvml/nvml_library.h"

namespace fabricpulse::agent {

struct BackendSelection {
  std::string backend;  // "gloo" or "nccl"
  // One entry per worker: its GPU index, or -1 for a CPU rank (Gloo ranks
  // with --gloo-probe-gpus: the GPU the busy-GPU check accounts them to).
  std::vector<int> gpus;
};

// What SelectBackend looks at on this machine. The agent links neither CUDA
// nor NCCL: it counts GPUs with NVML and asks the worker binary whether it
// has NCCL.
struct BackendEnvironment {
  // This machine's NVML (nvml::OpenNvml; a fake in tests); null when it
  // cannot be loaded (no driver): no GPU is visible then. Not owned.
  nvml::Nvml* nvml = nullptr;
  // CUDA_VISIBLE_DEVICES (nullopt: unset): the workers' CUDA sees only
  // these GPUs, numbered from 0 (see nvml/visible_gpus.h).
  std::optional<std::string> cuda_visible_devices;
  // The backends fabricpulse-worker has built in
  // (common::QueryWorkerBackends). Called at most once, and only when a GPU
  // is visible and the backend is nccl or auto.
  std::function<absl::StatusOr<std::vector<std::string>>()> worker_backends;
};

// `auto` is NCCL when a GPU is visible and the worker has NCCL built in,
// else Gloo. Gloo runs --ranks CPU ranks (default 1; with the test seam
// --gloo-probe-gpus, one per listed GPU). NCCL runs one worker
// per GPU: --gpus, or the first --ranks visible GPUs, or all visible GPUs.
// Errors: FAILED_PRECONDITION nccl asked for but no GPU visible or not built
// into the worker, or the worker cannot be asked; INVALID_ARGUMENT a --gpus
// index that is not visible, or more --ranks than visible GPUs.
absl::StatusOr<BackendSelection> SelectBackend(const AgentConfig& config,
                                               const BackendEnvironment& env);

}  // namespace fabricpulse::agent
