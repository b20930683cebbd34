// NVML, loaded at run time: how the agent and the CLI learn about this
// machine's GPUs without linking CUDA, NCCL or libnvidia-ml (a CPU node, a
// Gloo agent or CI has none of them). Only the worker's NCCL backend uses
// CUDA. Nothing here changes a GPU setting.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace fabricpulse::nvml {

// One compute process on a GPU, as NVML lists it.
struct ComputeProcess {
  int64_t pid = 0;
  // The GPU memory it uses (usedGpuMemory, nvidia-smi's per-process
  // figure); nullopt where NVML reports none (NVML_VALUE_NOT_AVAILABLE, e.g.
  // without the privilege to read it).
  std::optional<uint64_t> used_bytes;
};

// The NVML queries FabricPulse makes: the seam between its users (GPU
// counting, the agent's busy-GPU probe and free-memory figures) and the
// driver; a fake in unit
// tests. GPUs are named by NVML index: nvidia-smi's order (PCI bus order),
// which CUDA_VISIBLE_DEVICES does not renumber.
class Nvml {
 public:
  virtual ~Nvml() = default;

  // Number of GPUs NVML sees (nvmlDeviceGetCount_v2), all of them whatever
  // CUDA_VISIBLE_DEVICES says (see visible_gpus.h for CUDA's count).
  // Errors: UNAVAILABLE NVML's error (named). Thread-safe.
  virtual absl::StatusOr<int> DeviceCount() = 0;

  // The processes with a compute context on the GPU with NVML index
  // `nvml_index` (nvmlDeviceGetComputeRunningProcesses). The pids are in the
  // host's pid namespace. Errors: NOT_FOUND no such GPU; UNAVAILABLE any
  // other NVML error (named), or the driver lacks the call. Thread-safe.
  virtual absl::StatusOr<std::vector<ComputeProcess>> ComputeProcesses(
      int nvml_index) = 0;

  // The UUID of the GPU with NVML index `nvml_index` ("GPU-...", as
  // nvidia-smi -L prints it). Errors: NOT_FOUND no such GPU; UNAVAILABLE
  // any other NVML error, or the driver lacks the call. Thread-safe.
  virtual absl::StatusOr<std::string> DeviceUuid(int nvml_index) = 0;

  // Free memory of the GPU with NVML index `nvml_index`, in bytes
  // (nvmlDeviceGetMemoryInfo's free: what nvidia-smi shows as free, every
  // process's use subtracted). Errors: NOT_FOUND no such GPU; UNAVAILABLE
  // any other NVML error, or the driver lacks the call. Thread-safe.
  virtual absl::StatusOr<uint64_t> FreeMemory(int nvml_index) = 0;

  // The product name of the GPU with NVML index `nvml_index`
  // (nvmlDeviceGetName: "NVIDIA H200"). Errors: NOT_FOUND no such GPU;
  // UNAVAILABLE any other NVML error, or the driver lacks the call.
  // Thread-safe.
  virtual absl::StatusOr<std::string> DeviceName(int nvml_index) = 0;

  // The PCI bus id of the GPU with NVML index `nvml_index`
  // (nvmlDeviceGetPciInfo_v3's busId: "00000000:18:00.0"). Errors:
  // NOT_FOUND no such GPU; UNAVAILABLE any other NVML error, or the driver
  // lacks the call. Thread-safe.
  virtual absl::StatusOr<std::string> PciBusId(int nvml_index) = 0;

  // The PCI bus ids of the far ends of the GPU's active NVLinks, one entry
  // per active link (links 0 to kMaxNvLinks - 1, nvmlDeviceGetNvLinkState;
  // the far end from nvmlDeviceGetNvLinkRemotePciInfo_v2): another GPU's
  // bus id, or an NVSwitch's on switched systems. Empty when the GPU has no
  // NVLink (NVML answers NOT_SUPPORTED, or INVALID_ARGUMENT past its last
  // link). Errors: NOT_FOUND no such GPU; UNAVAILABLE any other NVML error,
  // or the driver lacks the calls. Thread-safe.
  virtual absl::StatusOr<std::vector<std::string>> NvLinkRemoteBusIds(
      int nvml_index) = 0;
};

// NVML_NVLINK_MAX_LINKS (nvml.h of drivers r535 and later: 18).
inline constexpr int kMaxNvLinks = 18;

// Loads libnvidia-ml.so.1 (dlopen) and initializes NVML; the returned object
// shuts NVML down and unloads it when destroyed. Errors: NOT_FOUND the
// library is not installed (no NVIDIA driver: expected on CPU nodes);
// UNAVAILABLE it lacks an entry point this code needs, or nvmlInit failed
// (e.g. the driver is not loaded), with NVML's message.
absl::StatusOr<std::unique_ptr<Nvml>> OpenNvml();

// The same from the library at `path` (a file name for the loader's search,
// or a path): the stand-in library of the unit tests.
absl::StatusOr<std::unique_ptr<Nvml>> OpenNvmlAt(const std::string& path);

}  // namespace fabricpulse::nvml
