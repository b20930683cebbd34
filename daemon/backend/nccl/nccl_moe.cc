// NcclCommunicator's moe ops (moe_dispatch, moe_combine): the exchange of
// core::BuildMoeExchange as grouped ncclSend/ncclRecv, with the rows
// written and checked on the host (core/moe_data.h).
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "daemon/backend/nccl/check_kernels.h"
#include "daemon/backend/nccl/cuda_status.h"
#include "daemon/backend/nccl/moe_kernels.h"
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
  const bool weighted = step.op == core::Op::kMoeCombineWeighted;
  moe_rows_ = weighted ? core::GroupMoeRowsByToken(*moe_, step.moe.tokens)
                       : core::MoeTokenRows();
  // Weighted: after the rows, the output, then the rows by token.
  const uint64_t out_bytes =
      weighted ? core::MoeWeightedOutputBytes(step.moe) : 0;
  const uint64_t begin_bytes = moe_rows_.begin.size() * sizeof(uint32_t);
  const uint64_t index_bytes = moe_rows_.rows.size() * sizeof(uint32_t);
  const uint64_t weight_bytes = moe_rows_.weights.size() * sizeof(float);
  const uint64_t out_at = AlignUp(send_bytes) + AlignUp(recv_bytes);
  const uint64_t begin_at = out_at + AlignUp(out_bytes);
  const uint64_t index_at = begin_at + AlignUp(begin_bytes);
  const uint64_t weight_at = index_at + AlignUp(index_bytes);
  FP_RETURN_IF_ERROR(Reserve(weighted ? weight_at + weight_bytes
                                      : AlignUp(send_bytes) + recv_bytes));
  Buffers b;
  b.send = buffer_;
  b.recv = static_cast<char*>(buffer_) + AlignUp(send_bytes);
  if (weighted) {
    char* base = static_cast<char*>(buffer_);
    b.moe_out = reinterpret_cast<float*>(base + out_at);
    b.moe_begin = reinterpret_cast<const uint32_t*>(base + begin_at);
    b.moe_rows = reinterpret_cast<const uint32_t*>(base + index_at);
    b.moe_weights = reinterpret_cast<const float*>(base + weight_at);
    FP_RETURN_IF_ERROR(CopyAndWait(base + begin_at, moe_rows_.begin.data(),
                                   begin_bytes, cudaMemcpyHostToDevice,
                                   options));
    if (index_bytes > 0) {
      FP_RETURN_IF_ERROR(CopyAndWait(base + index_at, moe_rows_.rows.data(),
                                     index_bytes, cudaMemcpyHostToDevice,
                                     options));
      FP_RETURN_IF_ERROR(CopyAndWait(base + weight_at, moe_rows_.weights.data(),
                                     weight_bytes, cudaMemcpyHostToDevice,
                                     options));
    }
  }
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
  const ncclResult_t exchanged = ncclGroupEnd();
  if (exchanged != ncclSuccess || b.moe_out == nullptr) return exchanged;
  // The weighted sum on the same stream: timed with the exchange.
  return nccl_moe::LaunchWeightedSum(b.recv, static_cast<int>(step.dtype),
                                     x.row_elements, step.moe.tokens,
                                     b.moe_begin, b.moe_rows, b.moe_weights,
                                     b.moe_out, stream_) == cudaSuccess
             ? ncclSuccess
             : ncclUnhandledCudaError;
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
  if (b.moe_out != nullptr) {
    // All ones: NaN, never a weighted sum.
    FP_RETURN_IF_ERROR(CudaToStatus(
        cudaMemsetAsync(b.moe_out, 0xFF, core::MoeWeightedOutputBytes(step.moe),
                        stream_),
        "cudaMemsetAsync"));
  }
  FP_RETURN_IF_ERROR(
      Enqueue(step, b, absl::Now() + options.op_timeout, options));
  std::vector<unsigned char> rows(recv_bytes);
  if (recv_bytes > 0) {
    FP_RETURN_IF_ERROR(CopyAndWait(rows.data(), b.recv, recv_bytes,
                                   cudaMemcpyDeviceToHost, options));
  }
  FP_ASSIGN_OR_RETURN(
      int64_t wrong,
      core::CountMoeWrong(step.op, step.dtype, rank_, *b.moe, rows.data()));
  if (b.moe_out != nullptr) {
    std::vector<float> out(static_cast<size_t>(step.moe.tokens) *
                           b.moe->row_elements);
    if (!out.empty()) {
      FP_RETURN_IF_ERROR(CopyAndWait(out.data(), b.moe_out,
                                     out.size() * sizeof(float),
                                     cudaMemcpyDeviceToHost, options));
    }
    wrong += core::CountMoeWeightedWrong(rank_, moe_rows_, b.moe->row_elements,
                                         out.data());
  }
  return wrong;
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
