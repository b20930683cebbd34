// The NCCL backend as a module that fabricpulse-worker loads at run time
// (libfabricpulse-nccl.so, beside the binaries in ../lib), so that the
// worker, the agent and the CLI run on CPU-only nodes without CUDA or NCCL
// installed: only this module links libcudart and libnccl.so.2.
//
// The entry points are C symbols; the objects they return are C++ and must
// come from the same build as the worker (kNcclModuleAbi checks it).
#pragma once

#include <cstddef>

namespace fabricpulse::backend {

class CollectiveBackend;

// Bumped whenever the CollectiveBackend seam changes.
inline constexpr int kNcclModuleAbi = 1;

extern "C" {
// Returns kNcclModuleAbi.
using NcclModuleAbiFn = int (*)();
// CUDA devices visible to this process (0 without a GPU or driver).
using NcclModuleVisibleGpusFn = int (*)();
// A new NcclBackend for CUDA device `gpu` (the caller owns it).
using NcclModuleMakeBackendFn = CollectiveBackend* (*)(int gpu,
                                                       double mem_fraction);
}

inline constexpr char kNcclModuleAbiSymbol[] = "fabricpulse_nccl_module_abi";
inline constexpr char kNcclModuleVisibleGpusSymbol[] =
    "fabricpulse_nccl_visible_gpus";
inline constexpr char kNcclModuleMakeBackendSymbol[] =
    "fabricpulse_nccl_make_backend";

}  // namespace fabricpulse::backend
