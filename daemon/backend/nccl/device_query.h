// GPU presence, for `--backend auto`. Never crashes without a driver.
#pragma once

namespace fabricpulse::backend {

// Number of CUDA devices visible to this process; 0 when there is no GPU
// or no driver (cudaGetDeviceCount fails, e.g. error 35).
int VisibleGpuCount();

}  // namespace fabricpulse::backend
