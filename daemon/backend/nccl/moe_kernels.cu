#include <cuda_bf16.h>
#include <cuda_fp8.h>

#include "daemon/backend/nccl/moe_kernels.h"
#include "daemon/core/pattern_formulas.h"

namespace fabricpulse::backend::nccl_moe {
namespace {

constexpr int kThreads = 256;

// Block (t, y): token t, elements y * kThreads + threadIdx.x.
template <typename T>
__global__ void WeightedSum(const T* recv, uint64_t row_elements,
                            const uint32_t* begin, const uint32_t* rows,
                            const float* weights, float* out) {
  const uint64_t h = static_cast<uint64_t>(blockIdx.y) * kThreads + threadIdx.x;
  if (h >= row_elements) return;
  const uint32_t t = blockIdx.x;
  float acc = 0;
  for (uint32_t i = begin[t]; i < begin[t + 1]; ++i) {
    acc += weights[i] * static_cast<float>(recv[rows[i] * row_elements + h]);
  }
  out[t * row_elements + h] = acc;
}

}  // namespace

cudaError_t LaunchWeightedSum(const void* recv, int dtype,
                              uint64_t row_elements, int tokens,
                              const uint32_t* begin, const uint32_t* rows,
                              const float* weights, float* out,
                              cudaStream_t stream) {
  if (tokens == 0 || row_elements == 0) return cudaSuccess;
  const dim3 grid(
      static_cast<unsigned>(tokens),
      static_cast<unsigned>((row_elements + kThreads - 1) / kThreads));
  if (dtype == core::formulas::kFp8E4M3) {
    WeightedSum<<<grid, kThreads, 0, stream>>>(
        static_cast<const __nv_fp8_e4m3*>(recv), row_elements, begin, rows,
        weights, out);
  } else {
    WeightedSum<<<grid, kThreads, 0, stream>>>(
        static_cast<const __nv_bfloat16*>(recv), row_elements, begin, rows,
        weights, out);
  }
  return cudaGetLastError();
}

}  // namespace fabricpulse::backend::nccl_moe
