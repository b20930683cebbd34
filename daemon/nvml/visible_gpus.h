// How many GPUs a CUDA program started here would see, answered from NVML
// (no CUDA): the agent's `--backend auto|nccl` and `fabricpulse local`
// decide with it, and a worker's `--gpu` is a CUDA device index below it.
//
// CUDA_VISIBLE_DEVICES narrows and renumbers CUDA's devices; NVML ignores
// it. When the variable is set, the count follows CUDA's rules for it:
//  - The value is a comma-separated list; spaces around an entry are
//    ignored. An empty value means no GPU.
//  - Entries count in order up to the first invalid one; the entries after
//    it are ignored (CUDA: "0,2,-1,1" shows GPUs 0 and 2).
//  - An index entry is read from its leading decimal digits ("0x" is 0, as
//    CUDA reads it on an H200 with driver 580); one that is out of range,
//    negative or does not start with a digit is invalid.
//  - A `GPU-...` entry (as nvidia-smi -L prints it, or a prefix of it) is
//    valid when it is the prefix of exactly one GPU's UUID as NVML reports
//    them; when the UUIDs are not known (NVML lacks the call), it counts
//    unverified. A `MIG-...` entry counts unverified (MIG devices are not
//    looked up). The count never exceeds NVML's.
//  - The list is either all indices or all UUIDs: an entry of the other
//    kind is invalid.
//  - A repeated entry makes CUDA see no GPU at all: the count is 0.
// Thread-safe (no shared state).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "daemon/nvml/nvml_library.h"

namespace fabricpulse::nvml {

// CUDA's device count given NVML's `devices`, their UUIDs by NVML index
// (`uuids`; empty: not known) and CUDA_VISIBLE_DEVICES' value (nullopt:
// unset), by the rules above.
int CudaVisibleCount(int devices, const std::vector<std::string>& uuids,
                     const std::optional<std::string>& cuda_visible_devices);
// The same with the UUIDs not known.
int CudaVisibleCount(int devices,
                     const std::optional<std::string>& cuda_visible_devices);

// CUDA_VISIBLE_DEVICES from this process's environment (nullopt: unset).
std::optional<std::string> CudaVisibleDevicesFromEnv();

// CUDA's device count on this machine: `nvml`'s device count narrowed by
// `cuda_visible_devices`. 0 when `nvml` is null (NVML cannot be loaded: no
// driver) or cannot count.
int VisibleGpuCount(Nvml* nvml,
                    const std::optional<std::string>& cuda_visible_devices);

}  // namespace fabricpulse::nvml
