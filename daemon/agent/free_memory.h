// The free-memory figure the agent reports for each of its workers
// (WorkerInfo.free_memory_bytes), read each time it describes itself
// (Describe, registration, heartbeats): what the coordinator sizes
// --max-bytes auto sweeps from (core/auto_max_bytes.h).
//  - A GPU rank: its GPU's free memory from NVML (what nvidia-smi shows; the
//    agent's --gpus indices are taken as NVML indices, as in
//    gpu_busy_probe.h). CUDA and NCCL stay in the workers.
//  - A CPU rank: the machine's available host memory (core/host_memory.h),
//    the same figure for every CPU rank; the coordinator shares it out
//    among the ranks of one machine.
// A figure that cannot be read is left unset (logged at debug level: it is
// read on every heartbeat), and a sweep with --max-bytes auto on that rank
// is refused naming it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "absl/status/statusor.h"
#include "daemon/nvml/nvml_library.h"
#include "fabricpulse/v1/types.pb.h"

namespace fabricpulse::agent {

// This machine's available host memory for the agent's CPU ranks:
// /proc/meminfo's MemAvailable, capped by the room left under the agent's
// cgroup memory limit (v2 memory.max - memory.current, else v1
// memory.limit_in_bytes - memory.usage_in_bytes, at /sys/fs/cgroup: the
// limit of a container). Errors: those of reading or parsing
// /proc/meminfo (core::ReadBoundedFile, core::ParseMemAvailable).
absl::StatusOr<uint64_t> ReadHostAvailableMemory();

// Thread-safe (Annotate only reads; NVML is thread-safe).
class FreeMemoryReader {
 public:
  using HostReader = std::function<absl::StatusOr<uint64_t>()>;

  // `nvml` answers FreeMemory for GPU ranks; null when NVML could not be
  // loaded (GPU figures are then unknown). `host` reads the host figure
  // (ReadHostAvailableMemory; a fake in unit tests).
  explicit FreeMemoryReader(std::shared_ptr<nvml::Nvml> nvml,
                            HostReader host = ReadHostAvailableMemory);

  // Sets free_memory_bytes of each of `info`'s workers whose figure can be
  // read now (the host figure read at most once per call) and clears it for
  // the others.
  void Annotate(v1::AgentInfo& info) const;

 private:
  const std::shared_ptr<nvml::Nvml> nvml_;
  const HostReader host_;
};

}  // namespace fabricpulse::agent
