#include "daemon/backend/nccl/device_query.h"

#include <cuda_runtime.h>

namespace fabricpulse::backend {

int VisibleGpuCount() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky error
    return 0;
  }
  return count;
}

}  // namespace fabricpulse::backend
