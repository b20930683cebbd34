// See launch_cover.h.
#include <cstdint>

#include "daemon/backend/nccl/launch_cover.h"

namespace fabricpulse::backend::launch_cover {
namespace {

__device__ uint64_t GlobalTimerNs() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void SpinKernel(uint64_t ns) {
  const uint64_t start = GlobalTimerNs();
  while (GlobalTimerNs() - start < ns) {
  }
}

}  // namespace

cudaError_t LaunchSpin(unsigned microseconds, cudaStream_t stream) {
  SpinKernel<<<1, 1, 0, stream>>>(uint64_t{microseconds} * 1000);
  return cudaGetLastError();
}

}  // namespace fabricpulse::backend::launch_cover
