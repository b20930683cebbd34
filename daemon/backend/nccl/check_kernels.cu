#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include "daemon/backend/nccl/check_kernels.h"
#include "daemon/core/pattern_formulas.h"

namespace fabricpulse::backend::nccl_check {
namespace {

namespace f = core::formulas;

constexpr int kThreads = 256;
constexpr int kMaxBlocks = 4096;

template <typename T>
__device__ T FromDouble(double v) {
  return static_cast<T>(v);
}
template <>
__device__ __half FromDouble<__half>(double v) {
  return __double2half(v);
}
template <>
__device__ __nv_bfloat16 FromDouble<__nv_bfloat16>(double v) {
  return __double2bfloat16(v);
}
template <>
__device__ __nv_fp8_e4m3 FromDouble<__nv_fp8_e4m3>(double v) {
  return __nv_fp8_e4m3(static_cast<float>(v));
}
template <>
__device__ __nv_fp8_e5m2 FromDouble<__nv_fp8_e5m2>(double v) {
  return __nv_fp8_e5m2(static_cast<float>(v));
}

template <typename T>
__device__ double ToDouble(T v) {
  return static_cast<double>(v);
}
template <>
__device__ double ToDouble<__half>(__half v) {
  return static_cast<double>(__half2float(v));
}
template <>
__device__ double ToDouble<__nv_bfloat16>(__nv_bfloat16 v) {
  return static_cast<double>(__bfloat162float(v));
}
template <>
__device__ double ToDouble<__nv_fp8_e4m3>(__nv_fp8_e4m3 v) {
  return static_cast<double>(static_cast<float>(v));
}
template <>
__device__ double ToDouble<__nv_fp8_e5m2>(__nv_fp8_e5m2 v) {
  return static_cast<double>(static_cast<float>(v));
}

template <typename T>
__global__ void FillKernel(T* buf, uint64_t n, PatternArgs a) {
  for (uint64_t i = blockIdx.x * uint64_t{blockDim.x} + threadIdx.x; i < n;
       i += uint64_t{blockDim.x} * gridDim.x) {
    buf[i] = FromDouble<T>(f::InputValue(a.op, a.redop, a.rank, a.nranks, i));
  }
}

template <typename T>
__global__ void PoisonKernel(T* buf, uint64_t n) {
  for (uint64_t i = blockIdx.x * uint64_t{blockDim.x} + threadIdx.x; i < n;
       i += uint64_t{blockDim.x} * gridDim.x) {
    buf[i] = FromDouble<T>(0.0);
  }
}

template <typename T>
__global__ void CountWrongKernel(const T* buf, uint64_t n, PatternArgs a,
                                 unsigned long long* wrong) {
  unsigned long long local = 0;
  for (uint64_t i = blockIdx.x * uint64_t{blockDim.x} + threadIdx.x; i < n;
       i += uint64_t{blockDim.x} * gridDim.x) {
    const double expected = f::ExpectedValue(a.op, a.redop, a.dtype, a.root,
                                             a.rank, a.nranks, a.count, i);
    const double diff = ToDouble<T>(buf[i]) - expected;
    const double tol = f::ToleranceCode(a.dtype, expected);
    // NaN never passes.
    if (!(diff <= tol && -diff <= tol)) local++;
  }
  for (int offset = 16; offset > 0; offset /= 2) {
    local += __shfl_down_sync(0xffffffffu, local, offset);
  }
  if ((threadIdx.x & 31) == 0 && local > 0) atomicAdd(wrong, local);
}

unsigned Blocks(uint64_t n) {
  uint64_t blocks = (n + kThreads - 1) / kThreads;
  if (blocks < 1) blocks = 1;
  return static_cast<unsigned>(blocks < kMaxBlocks ? blocks : kMaxBlocks);
}

// Calls `fn.template operator()<T>()` for the dtype's element type.
template <typename Fn>
cudaError_t Dispatch(int dtype, Fn&& fn) {
  switch (dtype) {
    case f::kInt8:
      return fn(static_cast<int8_t*>(nullptr));
    case f::kUint8:
      return fn(static_cast<uint8_t*>(nullptr));
    case f::kInt32:
      return fn(static_cast<int32_t*>(nullptr));
    case f::kUint32:
      return fn(static_cast<uint32_t*>(nullptr));
    case f::kInt64:
      return fn(static_cast<int64_t*>(nullptr));
    case f::kUint64:
      return fn(static_cast<uint64_t*>(nullptr));
    case f::kHalf:
      return fn(static_cast<__half*>(nullptr));
    case f::kFloat:
      return fn(static_cast<float*>(nullptr));
    case f::kDouble:
      return fn(static_cast<double*>(nullptr));
    case f::kBfloat16:
      return fn(static_cast<__nv_bfloat16*>(nullptr));
    case f::kFp8E4M3:
      return fn(static_cast<__nv_fp8_e4m3*>(nullptr));
    case f::kFp8E5M2:
      return fn(static_cast<__nv_fp8_e5m2*>(nullptr));
    default:
      return cudaErrorInvalidValue;
  }
}

}  // namespace

cudaError_t LaunchFill(void* buf, uint64_t n, const PatternArgs& args,
                       cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  return Dispatch(args.dtype, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    FillKernel<T>
        <<<Blocks(n), kThreads, 0, stream>>>(static_cast<T*>(buf), n, args);
    return cudaGetLastError();
  });
}

cudaError_t LaunchPoison(void* buf, uint64_t n, int dtype,
                         cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  return Dispatch(dtype, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    PoisonKernel<T>
        <<<Blocks(n), kThreads, 0, stream>>>(static_cast<T*>(buf), n);
    return cudaGetLastError();
  });
}

cudaError_t LaunchCountWrong(const void* buf, uint64_t n,
                             const PatternArgs& args, unsigned long long* wrong,
                             cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  return Dispatch(args.dtype, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    CountWrongKernel<T><<<Blocks(n), kThreads, 0, stream>>>(
        static_cast<const T*>(buf), n, args, wrong);
    return cudaGetLastError();
  });
}

}  // namespace fabricpulse::backend::nccl_check
