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
//  - An index entry is a decimal NVML index below NVML's device count; one
//    that is out of range, negative or not a number is invalid.
//  - A UUID entry (`GPU-...` or `MIG-...`, as nvidia-smi -L prints them,
//    or their prefixes) counts as one GPU. UUIDs are not looked up: an
//    unknown one still counts. The count never exceeds NVML's.
//  - The list is either all indices or all UUIDs: an entry of the other
//    kind is invalid.
//  - A repeated entry makes CUDA see no GPU at all: the count is 0.
// Thread-safe (no shared state).
#pragma once

#include <optional>
#include <string>

#include "daemon/nvml/nvml_library.h"

namespace fabricpulse::nvml {

// CUDA's device count given NVML's `devices` and CUDA_VISIBLE_DEVICES'
// value (nullopt: unset), by the rules above.
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
