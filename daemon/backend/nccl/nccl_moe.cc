// NcclCommunicator's moe ops (moe_dispatch, moe_combine): the exchange of
// core::BuildMoeExchange as grouped ncclSend/ncclRecv, with the rows
// written and checked on the host (core/moe_data.h).
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "daemon/backend/nccl/check_kernels.h"
#include "daemon/backend/nccl/cuda_status.h"
#include "daemon/backend/nccl/nccl_communicator.h"
#include "daemon/backend/nccl/nccl_types.h"
#include "daemon/core/moe_data.h"
#include "daemon/core/status_macros.h"

namespace fabricpulse::backend {

absl::StatusOr<NcclCommunicator::Buffers> NcclCommunicator::PrepareMoe(
    const core::Step& step, const RunOptions& options) {
  FP_ASSIGN_OR_RETURN(
      moe_, core::BuildMoeExchange(step.op, step.moe, nranks_, rank_));
  const uint64_t elem = core::DTypeSize(step.dtype);
  const uint64_t send_bytes = moe_->send_total * moe_->row_elements * elem;
  const uint64_t recv_bytes = moe_->recv_total * moe_->row_elements * elem;
  FP_RETURN_IF_ERROR(Reserve(AlignUp(send_bytes) + recv_bytes));
  Buffers b;
  b.send = buffer_;
  b.recv = static_cast<char*>(buffer_) + AlignUp(send_bytes);
  b.send_count = moe_->send_total * moe_->row_elements;
  b.recv_count = moe_->recv_total * moe_->row_elements;
  b.moe = &*moe_;
  if (send_bytes > 0) {
    std::vector<unsigned char> rows(send_bytes);
    FP_RETURN_IF_ERROR(core::FillMoeRows(step.dtype, moe_->send_ids,
                                         moe_->row_elements, rows.data()));
    FP_RETURN_IF_ERROR(CopyAndWait(b.send, rows.data(), send_bytes,
                                   cudaMemcpyHostToDevice, options));
  }
  return b;
}

ncclResult_t NcclCommunicator::EnqueueMoe(const core::Step& step,
                                          const Buffers& b) {
  const core::MoeExchange& x = *b.moe;
  const ncclDataType_t t = NcclType(step.dtype);
  const uint64_t row_bytes = x.row_elements * core::DTypeSize(step.dtype);
  ncclGroupStart();
  for (int p = 0; p < nranks_; ++p) {
    if (x.send_rows[p] > 0) {
      ncclSend(static_cast<char*>(b.send) + x.send_offset[p] * row_bytes,
               x.send_rows[p] * x.row_elements, t, p, comm_, stream_);
    }
    if (x.recv_rows[p] > 0) {
      ncclRecv(static_cast<char*>(b.recv) + x.recv_offset[p] * row_bytes,
               x.recv_rows[p] * x.row_elements, t, p, comm_, stream_);
    }
  }
  return ncclGroupEnd();
}

absl::StatusOr<int64_t> NcclCommunicator::CheckMoe(const core::Step& step,
                                                   const Buffers& b,
                                                   const RunOptions& options) {
  const uint64_t recv_bytes = b.recv_count * core::DTypeSize(step.dtype);
  // 0 is never a row value (1..8). The send rows are as PrepareMoe wrote
  // them: an exchange only reads them.
  FP_RETURN_IF_ERROR(CudaToStatus(
      nccl_check::LaunchPoison(b.recv, b.recv_count,
                               static_cast<int>(step.dtype), stream_),
      "poison kernel"));
  FP_RETURN_IF_ERROR(
      Enqueue(step, b, absl::Now() + options.op_timeout, options));
  std::vector<unsigned char> rows(recv_bytes);
  if (recv_bytes > 0) {
    FP_RETURN_IF_ERROR(CopyAndWait(rows.data(), b.recv, recv_bytes,
                                   cudaMemcpyDeviceToHost, options));
  }
  return core::CountMoeWrong(step.op, step.dtype, rank_, *b.moe, rows.data());
}

absl::Status NcclCommunicator::CopyAndWait(void* dst, const void* src,
                                           uint64_t bytes, cudaMemcpyKind kind,
                                           const RunOptions& options) {
  FP_RETURN_IF_ERROR(CudaToStatus(
      cudaMemcpyAsync(dst, src, bytes, kind, stream_), "cudaMemcpyAsync"));
  FP_RETURN_IF_ERROR(EnsureEvents(1));
  FP_RETURN_IF_ERROR(
      CudaToStatus(cudaEventRecord(events_[0], stream_), "cudaEventRecord"));
  return Wait(events_[0], absl::Now() + options.op_timeout, options);
}

}  // namespace fabricpulse::backend
