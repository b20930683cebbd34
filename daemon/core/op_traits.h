// Collective operations and their nccl-tests definitions: bytes, buffer
// layout and bus-bandwidth factor.
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace fabricpulse::core {

enum class Op {
  kAllReduce,
  kAllGather,
  kReduceScatter,
  kBroadcast,
  kReduce,
  kAllToAll,
  kSendRecv,
  kGather,
  kScatter,
  // Every rank pair, bidirectional sendrecv, in rounds of disjoint pairs
  // (pair_schedule.h): the matrix.
  kPairwise,
  // The MoE probe (moe_routing.h): dispatch sends each token's row to the
  // ranks of its experts, combine sends them back (all-to-all-v).
  kMoeDispatch,
  kMoeCombine,
  // Combine with the source's weighted sum of each token's returned rows
  // inside the timed region (DeepEP's combine kernel includes it).
  kMoeCombineWeighted,
};

absl::string_view OpName(Op op);
// Accepts canonical names and aliases ("allreduce", "all_to_all", ...).
// Errors: INVALID_ARGUMENT naming the field "ops" and the allowed names.
absl::StatusOr<Op> ParseOp(absl::string_view name);
std::string AllOpNames();

// True for ops that combine values (their redop matters).
bool IsReduction(Op op);
// True for ops with a root rank.
bool IsRooted(Op op);
// True for ops whose total count is split in nranks equal chunks.
bool SplitsCount(Op op);
// True for moe_dispatch and moe_combine: one step at the spec's MoE shape
// (moe_shape.h) instead of a size schedule.
bool IsMoe(Op op);
// kMoeCombine or kMoeCombineWeighted.
bool IsMoeCombine(Op op);
// True for ops that have an in-place variant here (all but alltoall and
// sendrecv).
bool SupportsInPlace(Op op);

// busbw = algbw * factor, nccl-tests' factors: all_reduce 2(n-1)/n;
// all_gather, reduce_scatter, alltoall, gather, scatter (n-1)/n;
// broadcast, reduce, sendrecv 1; pairwise 1 (per pair, per direction, as
// sendrecv); moe ops 1 here (their factor depends on the routing:
// MoeBusBandwidthFactor in moe_routing.h).
double BusBandwidthFactor(Op op, int nranks);

// Element count of a step of `bytes` with `element_size`-byte elements: the
// largest count <= bytes / element_size that the op can split evenly over
// nranks. Zero when the size is too small for the op.
uint64_t StepCount(Op op, uint64_t bytes, size_t element_size, int nranks);

// Where one rank's send and receive buffers lie, in elements. Out of place,
// send and receive are separate allocations of send_count and recv_count
// elements. In place they share one allocation of alloc_count elements,
// send at send_offset and receive at recv_offset (nccl-tests' layout:
// all_gather/gather send from recv + rank*chunk; reduce_scatter/scatter
// receive into send + rank*chunk).
struct BufferLayout {
  uint64_t send_count = 0;
  uint64_t recv_count = 0;
  bool in_place = false;
  uint64_t alloc_count = 0;
  uint64_t send_offset = 0;
  uint64_t recv_offset = 0;
};

// `count` is the step's total count (StepCount). Requires 0 <= rank < nranks.
BufferLayout LayoutFor(Op op, uint64_t count, int nranks, int rank,
                       bool in_place);

}  // namespace fabricpulse::core
