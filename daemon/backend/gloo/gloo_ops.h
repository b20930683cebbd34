// One collective of a step as real Gloo traffic over host buffers, with
// nccl-tests' semantics. Internal to the Gloo backend.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>

#include "absl/status/status.h"
#include "daemon/core/moe_data.h"
#include "daemon/core/moe_routing.h"
#include "daemon/core/op_traits.h"
#include "daemon/core/sweep_spec.h"
#include "gloo/context.h"

namespace fabricpulse::backend::gloo_impl {

// Everything one op needs. Pointers are to the step's regions as
// core::LayoutFor places them (in place, send and recv point into the same
// allocation).
struct OpCall {
  const core::Step* step = nullptr;
  core::BufferLayout layout;
  int rank = 0;
  int nranks = 1;
  void* send = nullptr;     // layout.send_count elements
  void* recv = nullptr;     // layout.recv_count elements
  void* scratch = nullptr;  // ScratchBytes(*step, nranks) bytes
  // The moe ops' exchange on this rank (send and recv hold its rows).
  const core::MoeExchange* moe = nullptr;
  // moe_combine_weighted: the returned rows by token, and the float32
  // output of their weighted sum (tokens x hidden), else null.
  const core::MoeTokenRows* moe_rows = nullptr;
  float* moe_out = nullptr;
  std::chrono::milliseconds timeout{0};
  // Gloo slot tag; must be the same on every rank for the same op call and
  // differ between consecutive calls.
  uint32_t tag = 0;
};

// Bytes of scratch memory RunGlooOp needs for `step` (0 for most ops).
uint64_t ScratchBytes(const core::Step& step, int nranks);

// Runs the op of `call.step` once on `context`:
//   all_reduce     gloo::allreduce
//   all_gather     gloo::allgather
//   reduce_scatter ring of n-1 unbound-buffer steps (Gloo has no
//                  options-style reduce_scatter); rank r ends with chunk r
//   broadcast      gloo::broadcast
//   reduce         gloo::reduce
//   alltoall       gloo::alltoall
//   sendrecv       ring: whole buffer to rank+1, from rank-1
//   gather         gloo::gather
//   scatter        gloo::scatter
//   pairwise       unbound-buffer sendrecv with the round's partner
//   moe_dispatch,  gloo::alltoallv of the exchange's rows (bytes moved as
//   moe_combine    they are: any dtype)
// Avg is sum followed by a local division where the output is defined. With
// one rank every op is a local copy (there is no peer to talk to). Never
// throws. Errors: those of GlooExceptionToStatus (DEADLINE_EXCEEDED,
// UNAVAILABLE, INTERNAL); INVALID_ARGUMENT unsupported dtype. After an
// error the context must be discarded.
absl::Status RunGlooOp(const std::shared_ptr<::gloo::Context>& context,
                       const OpCall& call);

// gloo::barrier with `timeout` and `tag`. Never throws; errors as RunGlooOp.
absl::Status RunGlooBarrier(const std::shared_ptr<::gloo::Context>& context,
                            std::chrono::milliseconds timeout, uint32_t tag);

// In place, the element-wise maximum of `values[0..count)` over every rank
// (gloo::allreduce with gloo::max<double>); nothing to do at one rank.
// Never throws; errors as RunGlooOp.
absl::Status RunGlooMaxAllreduce(
    const std::shared_ptr<::gloo::Context>& context, double* values,
    size_t count, std::chrono::milliseconds timeout, uint32_t tag);

}  // namespace fabricpulse::backend::gloo_impl
