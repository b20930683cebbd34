#include "daemon/backend/nccl/cuda_status.h"

#include "absl/strings/str_cat.h"

namespace fabricpulse::backend {

absl::Status CudaToStatus(cudaError_t err, absl::string_view what) {
  if (err == cudaSuccess) return absl::OkStatus();
  const std::string message =
      absl::StrCat(what, ": CUDA error ", static_cast<int>(err), " (",
                   cudaGetErrorName(err), ": ", cudaGetErrorString(err), ")");
  switch (err) {
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
      return absl::UnavailableError(message);
    case cudaErrorMemoryAllocation:
      return absl::ResourceExhaustedError(message);
    default:
      return absl::InternalError(message);
  }
}

absl::Status NcclToStatus(ncclResult_t result, absl::string_view what,
                          ncclComm_t comm) {
  if (result == ncclSuccess) return absl::OkStatus();
  const char* last = ncclGetLastError(comm);
  const std::string message =
      absl::StrCat(what, ": NCCL error ", static_cast<int>(result), " (",
                   ncclGetErrorString(result), ")",
                   (last != nullptr && last[0] != '\0') ? ": " : "",
                   last != nullptr ? last : "");
  switch (result) {
    case ncclSystemError:
    case ncclRemoteError:
      return absl::UnavailableError(message);
    case ncclInvalidArgument:
    case ncclInvalidUsage:
      return absl::InvalidArgumentError(message);
    default:
      return absl::InternalError(message);
  }
}

}  // namespace fabricpulse::backend
