// The weighted combine's reduction on the GPU (moe_combine_weighted): the
// device twin of core::ReduceMoeRows, launched on the step's stream right
// after the exchange, so that it is inside the timed region as DeepEP's
// combine kernel is.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace fabricpulse::backend::nccl_moe {

// out[t * row_elements + h] = sum over i in [begin[t], begin[t + 1]) of
// weights[i] x element h of row rows[i] of `recv`, in float32, for t in
// [0, tokens). `dtype` is a core::DType value (bfloat16 or fp8_e4m3).
// Device pointers; nothing is launched for tokens == 0.
cudaError_t LaunchWeightedSum(const void* recv, int dtype,
                              uint64_t row_elements, int tokens,
                              const uint32_t* begin, const uint32_t* rows,
                              const float* weights, float* out,
                              cudaStream_t stream);

}  // namespace fabricpulse::backend::nccl_moe
