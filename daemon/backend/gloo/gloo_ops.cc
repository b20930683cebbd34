#include "daemon/backend/gloo/gloo_ops.h"

#include <cstring>
#include <exception>
#include <vector>

#include "absl/strings/str_cat.h"
#include "daemon/backend/gloo/gloo_dtype.h"
#include "daemon/backend/gloo/gloo_status.h"
#include "daemon/backend/gloo/host_data_check.h"
#include "daemon/core/pair_schedule.h"
#include "gloo/allgather.h"
#include "gloo/allreduce.h"
#include "gloo/alltoall.h"
#include "gloo/alltoallv.h"
#include "gloo/barrier.h"
#include "gloo/broadcast.h"
#include "gloo/common/error.h"
#include "gloo/gather.h"
#include "gloo/reduce.h"
#include "gloo/scatter.h"
#include "gloo/transport/unbound_buffer.h"

namespace fabricpulse::backend::gloo_impl {
namespace {

using Context = std::shared_ptr<::gloo::Context>;

// Slot prefixes of our own point-to-point ops, outside the range Gloo's
// collectives use (0x01..0x08, gloo/types.h).
constexpr uint8_t kReduceScatterSlotPrefix = 0x40;
constexpr uint8_t kSendRecvSlotPrefix = 0x41;
constexpr uint8_t kPairwiseSlotPrefix = 0x42;

// waitRecv/waitSend return false only after abortWaitRecv/abortWaitSend,
// i.e. when GlooCommunicator::Abort ended the wait (AbortableContext).
void WaitRecv(::gloo::transport::UnboundBuffer* buffer,
              std::chrono::milliseconds timeout) {
  if (!buffer->waitRecv(timeout)) {
    throw ::gloo::IoException("receive was aborted");
  }
}

void WaitSend(::gloo::transport::UnboundBuffer* buffer,
              std::chrono::milliseconds timeout) {
  if (!buffer->waitSend(timeout)) {
    throw ::gloo::IoException("send was aborted");
  }
}

uint64_t Chunk(const OpCall& c) { return c.step->count / c.nranks; }

template <typename T>
void AllReduce(const Context& ctx, const OpCall& c) {
  ::gloo::AllreduceOptions opts(ctx);
  const size_t count = c.layout.recv_count;
  if (!c.layout.in_place) opts.setInput<T>(static_cast<T*>(c.send), count);
  opts.setOutput<T>(static_cast<T*>(c.recv), count);
  opts.setReduceFunction(ReduceFunctionFor<T>(c.step->redop));
  opts.setTag(c.tag);
  opts.setTimeout(c.timeout);
  ::gloo::allreduce(opts);
}

template <typename T>
void AllGather(const Context& ctx, const OpCall& c) {
  ::gloo::AllgatherOptions opts(ctx);
  // In place the input already sits at recv + rank * chunk, which is what
  // Gloo expects when no input is given.
  if (!c.layout.in_place) {
    opts.setInput<T>(static_cast<T*>(c.send), c.layout.send_count);
  }
  opts.setOutput<T>(static_cast<T*>(c.recv), c.layout.recv_count);
  opts.setTag(c.tag);
  opts.setTimeout(c.timeout);
  ::gloo::allgather(opts);
}

// Ring reduce-scatter: in step s (0..n-2) rank r sends its partial of chunk
// (r-s-1) mod n to r+1 and receives the partial of chunk (r-s-2) mod n from
// r-1, which it reduces with its own input. After n-1 steps chunk r holds
// all n contributions. Each rank sends (n-1)/n of the data, as the busbw
// factor assumes. Both transfers of a step finish before the reduction, so
// one partial buffer suffices.
template <typename T>
void ReduceScatter(const Context& ctx, const OpCall& c) {
  const int n = c.nranks;
  const int r = c.rank;
  const uint64_t chunk = Chunk(c);
  const size_t chunk_bytes = chunk * sizeof(T);
  const T* input = static_cast<const T*>(c.send);
  T* incoming = static_cast<T*>(c.scratch);
  T* partial = incoming + chunk;
  const ReduceFn reduce = ReduceFunctionFor<T>(c.step->redop);
  const uint64_t slot = ::gloo::Slot::build(kReduceScatterSlotPrefix, c.tag);

  auto input_buffer =
      ctx->createUnboundBuffer(c.send, c.layout.send_count * sizeof(T));
  auto incoming_buffer = ctx->createUnboundBuffer(incoming, chunk_bytes);
  auto partial_buffer = ctx->createUnboundBuffer(partial, chunk_bytes);
  const int right = (r + 1) % n;
  const int left = (r + n - 1) % n;
  for (int s = 0; s < n - 1; ++s) {
    const uint64_t send_chunk = (r - s - 1 + 2 * n) % n;
    const uint64_t recv_chunk = (r - s - 2 + 2 * n) % n;
    incoming_buffer->recv(left, slot);
    ::gloo::transport::UnboundBuffer* outgoing =
        s == 0 ? input_buffer.get() : partial_buffer.get();
    outgoing->send(right, slot, s == 0 ? send_chunk * chunk_bytes : 0,
                   chunk_bytes);
    WaitRecv(incoming_buffer.get(), c.timeout);
    WaitSend(outgoing, c.timeout);
    T* destination = s == n - 2 ? static_cast<T*>(c.recv) : partial;
    reduce(destination, input + recv_chunk * chunk, incoming, chunk);
  }
}

template <typename T>
void Broadcast(const Context& ctx, const OpCall& c) {
  ::gloo::BroadcastOptions opts(ctx);
  const size_t count = c.layout.recv_count;
  if (c.rank == c.step->root && !c.layout.in_place) {
    opts.setInput<T>(static_cast<T*>(c.send), count);
  }
  opts.setOutput<T>(static_cast<T*>(c.recv), count);
  opts.setRoot(c.step->root);
  opts.setTag(c.tag);
  opts.setTimeout(c.timeout);
  ::gloo::broadcast(opts);
}

// Gloo's reduce is a ring reduce-scatter then a gather to the root, so
// non-root outputs are scratch; only the root's output is checked.
template <typename T>
void Reduce(const Context& ctx, const OpCall& c) {
  ::gloo::ReduceOptions opts(ctx);
  const size_t count = c.layout.recv_count;
  if (!c.layout.in_place) opts.setInput<T>(static_cast<T*>(c.send), count);
  opts.setOutput<T>(static_cast<T*>(c.recv), count);
  opts.setRoot(c.step->root);
  opts.setReduceFunction(ReduceFunctionFor<T>(c.step->redop));
  opts.setTag(c.tag);
  opts.setTimeout(c.timeout);
  ::gloo::reduce(opts);
}

template <typename T>
void AllToAll(const Context& ctx, const OpCall& c) {
  ::gloo::AlltoallOptions opts(ctx);
  opts.setInput<T>(static_cast<T*>(c.send), c.layout.send_count);
  opts.setOutput<T>(static_cast<T*>(c.recv), c.layout.recv_count);
  opts.setTag(c.tag);
  opts.setTimeout(c.timeout);
  ::gloo::alltoall(opts);
}

template <typename T>
void SendRecv(const Context& ctx, const OpCall& c) {
  const uint64_t slot = ::gloo::Slot::build(kSendRecvSlotPrefix, c.tag);
  auto send_buffer =
      ctx->createUnboundBuffer(c.send, c.layout.send_count * sizeof(T));
  auto recv_buffer =
      ctx->createUnboundBuffer(c.recv, c.layout.recv_count * sizeof(T));
  recv_buffer->recv((c.rank + c.nranks - 1) % c.nranks, slot);
  send_buffer->send((c.rank + 1) % c.nranks, slot);
  WaitRecv(recv_buffer.get(), c.timeout);
  WaitSend(send_buffer.get(), c.timeout);
}

// Bidirectional sendrecv with this round's partner (pair_schedule.h); a rank
// that sits the round out does nothing.
template <typename T>
void Pairwise(const Context& ctx, const OpCall& c) {
  const int partner = core::PairPartner(c.step->round, c.rank, c.nranks);
  if (partner < 0) return;
  const uint64_t slot = ::gloo::Slot::build(kPairwiseSlotPrefix, c.tag);
  auto send_buffer =
      ctx->createUnboundBuffer(c.send, c.layout.send_count * sizeof(T));
  auto recv_buffer =
      ctx->createUnboundBuffer(c.recv, c.layout.recv_count * sizeof(T));
  recv_buffer->recv(partner, slot);
  send_buffer->send(partner, slot);
  WaitRecv(recv_buffer.get(), c.timeout);
  WaitSend(send_buffer.get(), c.timeout);
}

// In place, the root's input already sits at its slot of the output and
// Gloo's local copy of it has source == destination (gather and scatter).
template <typename T>
void Gather(const Context& ctx, const OpCall& c) {
  ::gloo::GatherOptions opts(ctx);
  opts.setInput<T>(static_cast<T*>(c.send), c.layout.send_count);
  if (c.rank == c.step->root) {
    opts.setOutput<T>(static_cast<T*>(c.recv), c.layout.recv_count);
  }
  opts.setRoot(c.step->root);
  opts.setTag(c.tag);
  opts.setTimeout(c.timeout);
  ::gloo::gather(opts);
}

template <typename T>
void Scatter(const Context& ctx, const OpCall& c) {
  ::gloo::ScatterOptions opts(ctx);
  const uint64_t chunk = Chunk(c);
  if (c.rank == c.step->root) {
    std::vector<T*> inputs(c.nranks);
    for (int i = 0; i < c.nranks; ++i) {
      inputs[i] = static_cast<T*>(c.send) + i * chunk;
    }
    opts.setInputs<T>(inputs, chunk);
  }
  opts.setOutput<T>(static_cast<T*>(c.recv), c.layout.recv_count);
  opts.setRoot(c.step->root);
  opts.setTag(c.tag);
  opts.setTimeout(c.timeout);
  ::gloo::scatter(opts);
}

// The exchange's rows, per peer, as elements of T (a type of the step's
// element size: the rows are moved, never computed on).
template <typename T>
void MoeAllToAllV(const Context& ctx, const OpCall& c) {
  const core::MoeExchange& x = *c.moe;
  auto elements = [&](const std::vector<uint64_t>& rows) {
    std::vector<int64_t> out;
    out.reserve(rows.size());
    for (uint64_t r : rows) {
      out.push_back(static_cast<int64_t>(r * x.row_elements));
    }
    return out;
  };
  ::gloo::AlltoallvOptions opts(ctx);
  opts.setInput<T>(static_cast<T*>(c.send), elements(x.send_rows));
  opts.setOutput<T>(static_cast<T*>(c.recv), elements(x.recv_rows));
  opts.setTag(c.tag);
  opts.setTimeout(c.timeout);
  ::gloo::alltoallv(opts);
}

absl::Status RunMoe(const Context& ctx, const OpCall& c) {
  if (absl::Status s = core::CheckMoeDType(c.step->dtype); !s.ok()) return s;
  // bfloat16 rows move as 2-byte elements, fp8 rows as bytes.
  if (core::DTypeSize(c.step->dtype) == 1) {
    MoeAllToAllV<uint8_t>(ctx, c);
  } else {
    MoeAllToAllV<uint16_t>(ctx, c);
  }
  // moe_combine_weighted: the source's weighted sum, timed with the
  // exchange (DeepEP's combine kernel includes it).
  if (c.moe_rows != nullptr) {
    core::ReduceMoeRows(c.step->dtype, *c.moe_rows, c.moe->row_elements, c.recv,
                        c.moe_out);
  }
  return absl::OkStatus();
}

template <typename T>
void Dispatch(const Context& ctx, const OpCall& c) {
  switch (c.step->op) {
    case core::Op::kAllReduce:
      return AllReduce<T>(ctx, c);
    case core::Op::kAllGather:
      return AllGather<T>(ctx, c);
    case core::Op::kReduceScatter:
      return ReduceScatter<T>(ctx, c);
    case core::Op::kBroadcast:
      return Broadcast<T>(ctx, c);
    case core::Op::kReduce:
      return Reduce<T>(ctx, c);
    case core::Op::kAllToAll:
      return AllToAll<T>(ctx, c);
    case core::Op::kSendRecv:
      return SendRecv<T>(ctx, c);
    case core::Op::kGather:
      return Gather<T>(ctx, c);
    case core::Op::kScatter:
      return Scatter<T>(ctx, c);
    case core::Op::kPairwise:
      return Pairwise<T>(ctx, c);
    case core::Op::kMoeDispatch:
    case core::Op::kMoeCombine:
    case core::Op::kMoeCombineWeighted:
      return;  // RunMoe, before the dtype is visited
  }
}

// True when this rank's receive region holds a reduction to average.
bool NeedsAvgDivision(const OpCall& c) {
  if (c.step->redop != core::RedOp::kAvg || !core::IsReduction(c.step->op)) {
    return false;
  }
  return c.step->op != core::Op::kReduce || c.rank == c.step->root;
}

}  // namespace

uint64_t ScratchBytes(const core::Step& step, int nranks) {
  if (step.op != core::Op::kReduceScatter || nranks < 2) return 0;
  return 2 * (step.count / nranks) * core::DTypeSize(step.dtype);
}

absl::Status RunGlooOp(const Context& context, const OpCall& call) {
  const size_t element = core::DTypeSize(call.step->dtype);
  try {
    if (call.moe != nullptr) return RunMoe(context, call);
    if (call.nranks == 1) {
      if (call.recv != call.send) {
        std::memmove(call.recv, call.send, call.layout.recv_count * element);
      }
    } else {
      absl::Status status = VisitDType(call.step->dtype, [&](auto tag) {
        Dispatch<decltype(tag)>(context, call);
        return absl::OkStatus();
      });
      if (!status.ok()) return status;
    }
    if (NeedsAvgDivision(call)) {
      return DivideByRanks(call.step->dtype, call.recv, call.layout.recv_count,
                           call.nranks);
    }
    return absl::OkStatus();
  } catch (...) {
    return GlooExceptionToStatus(
        std::current_exception(),
        absl::StrCat(core::OpName(call.step->op), " (step ", call.step->index,
                     ")"));
  }
}

absl::Status RunGlooBarrier(const Context& context,
                            std::chrono::milliseconds timeout, uint32_t tag) {
  try {
    ::gloo::BarrierOptions opts(context);
    opts.setTag(tag);
    opts.setTimeout(timeout);
    ::gloo::barrier(opts);
    return absl::OkStatus();
  } catch (...) {
    return GlooExceptionToStatus(std::current_exception(), "barrier");
  }
}

absl::Status RunGlooMaxAllreduce(const Context& context, double* values,
                                 size_t count,
                                 std::chrono::milliseconds timeout,
                                 uint32_t tag) {
  if (context->size == 1) return absl::OkStatus();
  try {
    ::gloo::AllreduceOptions opts(context);
    opts.setOutput<double>(values, count);
    opts.setReduceFunction(static_cast<ReduceFn>(&::gloo::max<double>));
    opts.setTag(tag);
    opts.setTimeout(timeout);
    ::gloo::allreduce(opts);
    return absl::OkStatus();
  } catch (...) {
    return GlooExceptionToStatus(std::current_exception(),
                                 "agreement (all-reduce max)");
  }
}

}  // namespace fabricpulse::backend::gloo_impl
