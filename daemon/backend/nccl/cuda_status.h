// The one edge where CUDA runtime and NCCL results become absl::Status.
#pragma once

#include <cuda_runtime.h>
#include <nccl.h>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace fabricpulse::backend {

// OK for cudaSuccess; otherwise INTERNAL (UNAVAILABLE when there is no
// device or driver, RESOURCE_EXHAUSTED for out-of-memory) naming `what`.
absl::Status CudaToStatus(cudaError_t err, absl::string_view what);
// OK for ncclSuccess; UNAVAILABLE for system/remote errors, INVALID_ARGUMENT
// for invalid arguments/usage, INTERNAL otherwise; names `what` and NCCL's
// last error string.
absl::Status NcclToStatus(ncclResult_t result, absl::string_view what,
                          ncclComm_t comm = nullptr);

}  // namespace fabricpulse::backend
