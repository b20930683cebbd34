// Device-side data check: fill inputs from rank and index, poison outputs,
// count wrong output elements, all on the GPU (a multi-GiB buffer costs
// milliseconds, not a host copy). Formulas: daemon/core/pattern_formulas.h.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace fabricpulse::backend::nccl_check {

struct PatternArgs {
  int op;     // core::Op value
  int redop;  // core::RedOp value
  int dtype;  // core::DType value
  int root;
  int rank;
  int nranks;
  uint64_t count;  // the step's total count
};

// Writes InputValue(i) into elements [0, n) of `buf`.
cudaError_t LaunchFill(void* buf, uint64_t n, const PatternArgs& args,
                       cudaStream_t stream);
// Writes 0 (never a valid output: inputs and results are never 0).
cudaError_t LaunchPoison(void* buf, uint64_t n, int dtype, cudaStream_t stream);
// Adds to *wrong (device memory) the number of elements in [0, n) that
// differ from ExpectedValue(i) by more than the dtype's tolerance.
cudaError_t LaunchCountWrong(const void* buf, uint64_t n,
                             const PatternArgs& args, unsigned long long* wrong,
                             cudaStream_t stream);

}  // namespace fabricpulse::backend::nccl_check
