// NcclCommunicator::AgreeMax: the ranks' agreement collective.
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "daemon/backend/nccl/cuda_status.h"
#include "daemon/backend/nccl/nccl_communicator.h"
#include "daemon/core/status_macros.h"

namespace fabricpulse::backend {

absl::StatusOr<std::vector<double>> NcclCommunicator::AgreeMax(
    const std::vector<double>& values, const RunOptions& options) {
  FP_RETURN_IF_ERROR(CheckAgreeMaxArgs(values, options));
  if (broken_) {
    return abort_requested_ ? absl::AbortedError("communicator was aborted")
                            : absl::FailedPreconditionError(
                                  "communicator is broken; build a new one");
  }
  FP_RETURN_IF_ERROR(CudaToStatus(cudaSetDevice(gpu_), "cudaSetDevice"));
  absl::StatusOr<std::vector<double>> agreed = RunAgreeMax(values, options);
  if (!agreed.ok()) return broken_ ? agreed.status() : Fail(agreed.status());
  return agreed;
}

absl::StatusOr<std::vector<double>> NcclCommunicator::RunAgreeMax(
    const std::vector<double>& values, const RunOptions& options) {
  constexpr size_t kBytes = kMaxAgreeValues * sizeof(double);
  // Buffers of its own: an agreement may come between steps, when the
  // sweep's buffers hold a step's data, or outside a sweep.
  if (agree_device_ == nullptr) {
    FP_RETURN_IF_ERROR(CudaToStatus(
        cudaMalloc(reinterpret_cast<void**>(&agree_device_), kBytes),
        "cudaMalloc"));
  }
  if (agree_host_ == nullptr) {
    FP_RETURN_IF_ERROR(CudaToStatus(
        cudaMallocHost(reinterpret_cast<void**>(&agree_host_), kBytes),
        "cudaMallocHost"));
  }
  if (agree_event_ == nullptr) {
    FP_RETURN_IF_ERROR(CudaToStatus(
        cudaEventCreateWithFlags(&agree_event_, cudaEventDisableTiming),
        "cudaEventCreate"));
  }
  const size_t n = values.size();
  const size_t bytes = n * sizeof(double);
  // The previous agreement has completed (Wait), so the host copy is free.
  std::memcpy(agree_host_, values.data(), bytes);
  const absl::Time deadline = absl::Now() + options.op_timeout;
  FP_RETURN_IF_ERROR(
      CudaToStatus(cudaMemcpyAsync(agree_device_, agree_host_, bytes,
                                   cudaMemcpyHostToDevice, stream_),
                   "cudaMemcpyAsync"));
  FP_RETURN_IF_ERROR(
      GuardedEnqueue("agreement (all-reduce max)", deadline, options, [&]() {
        return ncclAllReduce(agree_device_, agree_device_, n, ncclDouble,
                             ncclMax, comm_, stream_);
      }));
  FP_RETURN_IF_ERROR(
      CudaToStatus(cudaMemcpyAsync(agree_host_, agree_device_, bytes,
                                   cudaMemcpyDeviceToHost, stream_),
                   "cudaMemcpyAsync"));
  FP_RETURN_IF_ERROR(
      CudaToStatus(cudaEventRecord(agree_event_, stream_), "cudaEventRecord"));
  FP_RETURN_IF_ERROR(Wait(agree_event_, deadline, options));
  return std::vector<double>(agree_host_, agree_host_ + n);
}

}  // namespace fabricpulse::backend
