#include "daemon/core/backend_support.h"

#include "absl/strings/str_cat.h"

namespace fabricpulse::core {

uint64_t BackendBufferLimit(absl::string_view backend) {
  return backend == "gloo" ? kGlooMaxBufferBytes : UINT64_MAX;
}

absl::Status CheckBackendSupport(absl::string_view backend,
                                 const ResolvedSpec& spec,
                                 const SweepSpec& raw) {
  if (backend == "gloo") {
    switch (spec.dtype) {
      case DType::kBfloat16:
      case DType::kFp8E4M3:
      case DType::kFp8E5M2:
        return absl::InvalidArgumentError(absl::StrCat(
            "dtype: '", DTypeName(spec.dtype),
            "' is not supported by the gloo backend; allowed: int8, uint8, "
            "int32, uint32, int64, uint64, half, float, double"));
      default:
        break;
    }
    if (raw.graph) {
      return absl::InvalidArgumentError(
          "graph: CUDA-graph mode needs the nccl backend; the gloo backend "
          "runs on CPUs");
    }
    return absl::OkStatus();
  }
  if (backend == "nccl") return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "backend: unknown backend '", backend, "'; allowed: gloo, nccl"));
}

}  // namespace fabricpulse::core
