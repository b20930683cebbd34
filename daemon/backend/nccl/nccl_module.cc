// The module's C entry points (see nccl_module.h); everything else in the
// module is hidden.
#include "daemon/backend/nccl/nccl_module.h"

#include "daemon/backend/nccl/device_query.h"
#include "daemon/backend/nccl/nccl_backend.h"

#define FABRICPULSE_EXPORT extern "C" __attribute__((visibility("default")))

FABRICPULSE_EXPORT int fabricpulse_nccl_module_abi() {
  return fabricpulse::backend::kNcclModuleAbi;
}

FABRICPULSE_EXPORT int fabricpulse_nccl_visible_gpus() {
  return fabricpulse::backend::VisibleGpuCount();
}

FABRICPULSE_EXPORT fabricpulse::backend::CollectiveBackend*
fabricpulse_nccl_make_backend(int gpu, double mem_fraction) {
  return new fabricpulse::backend::NcclBackend(gpu, mem_fraction);
}
