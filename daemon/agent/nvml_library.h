// NVML, loaded at run time: only the agent uses it, and only to list the
// compute processes on its GPUs. The product never links libnvidia-ml (a
// CPU node, a Gloo agent or CI has none) and never changes a GPU setting.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"

namespace fabricpulse::agent {

// The compute processes on a GPU: the seam between the busy-GPU probe and
// NVML (a fake in unit tests).
class GpuProcessLister {
 public:
  virtual ~GpuProcessLister() = default;
  // Pids of the processes with a compute context on the GPU with NVML index
  // `nvml_index` (NVML's order is nvidia-smi's: PCI bus order). The pids
  // are in the host's pid namespace. Errors: NOT_FOUND no such GPU;
  // UNAVAILABLE any other NVML error (named). Thread-safe.
  virtual absl::StatusOr<std::vector<int64_t>> ComputePids(int nvml_index) = 0;
};

// Loads libnvidia-ml.so.1 (dlopen) and initializes NVML; the returned lister
// shuts NVML down and unloads it when destroyed. Errors: NOT_FOUND the
// library is not installed (no NVIDIA driver: expected on CPU nodes);
// UNAVAILABLE it lacks an entry point this code needs, or nvmlInit failed
// (e.g. the driver is not loaded), with NVML's message.
absl::StatusOr<std::unique_ptr<GpuProcessLister>> OpenNvml();

}  // namespace fabricpulse::agent
