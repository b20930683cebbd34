// The MoE probe's routing and each rank's all-to-all-v (moe_shape.h).
//
// Expert e (0 <= e < experts_per_rank x nranks) lives on rank
// e / experts_per_rank. Token t of rank s picks topk distinct experts, each
// draw a seeded hash of (seed, s, t, attempt) mapped through the experts'
// popularity (uniform, or Zipf with exponent skew), so every rank computes
// every rank's routing without talking. A token's destinations are the
// ranks of its experts, each once (DeepEP's dispatch sends a row once per
// rank, not per expert).
//
// Dispatch: rank s sends, to each rank d in order, the rows of its tokens
// routed to d (tokens ascending); rank d receives them into one block per
// source s, sources ascending. Combine runs the same exchange backwards:
// d sends each block back to its source, and s receives into its dispatch
// send layout, then adds up each token's rows (one per destination).
//
// Row contents (the data check): element h of token t of rank s is
// MoeValue(s, t, h), an integer 1..8 that bfloat16 and fp8_e4m3 hold
// exactly; a combined token is its destinations' count times that.
//
// Cost: every rank draws tokens x topk x nranks experts per exchange it
// builds (bounded by kMaxMoeRoutingDraws); memory is its own rows' ids.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "daemon/core/moe_shape.h"
#include "daemon/core/op_traits.h"

namespace fabricpulse::core {

// Every token's destination ranks, sorted, each once (CSR: token t's are
// dests[begin[t] .. begin[t + 1])); with per_selection, one entry per
// selection instead (a rank repeats, once per expert of it). weights[i] is
// the sum of the top-k weights of the selections entry i carries. The
// selections themselves (masked ones left out, in the order drawn):
// experts[expert_begin[t] .. expert_begin[t + 1]).
struct SourceRouting {
  std::vector<uint32_t> begin;
  std::vector<int32_t> dests;
  std::vector<float> weights;
  std::vector<uint32_t> expert_begin;
  std::vector<int32_t> experts;
};

// Token t of rank s's score of `expert` in [0, 1) (DeepEP's |randn| + 1:
// only the order matters), for group-limited routing.
double MoeExpertScore(const MoeShape& shape, int src, int token, int expert);

// The top-k weight of selection `slot` of token t of rank s: k / 8 for a
// seeded k in 1..8 (DeepEP draws |randn|; eighths keep the weighted sums
// exact in float32).
float MoeWeight(const MoeShape& shape, int src, int token, int slot);

// The routing of source rank `src`. Requires a valid shape for nranks.
SourceRouting RouteSource(const MoeShape& shape, int nranks, int src);

// rows[s * nranks + d]: how many of rank s's tokens go to rank d.
std::vector<uint64_t> MoeRowMatrix(const MoeShape& shape, int nranks);

// A row of a send or receive buffer: whose token it is.
struct MoeRowId {
  int32_t src = 0;
  int32_t token = 0;
  // The weight the combine's weighted sum gives the row (SourceRouting's).
  float weight = 1;
};

// One rank's all-to-all-v for one op (dispatch or combine), in rows of
// `hidden` elements. Per peer p: send_rows[p] rows from send_offset[p] of
// the send buffer, recv_rows[p] rows into recv_offset[p] of the receive
// buffer; the ids say what each row holds.
struct MoeExchange {
  uint64_t row_elements = 0;
  std::vector<uint64_t> send_rows, send_offset;
  std::vector<uint64_t> recv_rows, recv_offset;
  uint64_t send_total = 0;  // rows
  uint64_t recv_total = 0;
  std::vector<MoeRowId> send_ids;
  std::vector<MoeRowId> recv_ids;
};

// `op` is a moe op (kMoeCombineWeighted exchanges as kMoeCombine). Rows
// are MoeRowElements(shape, op) elements. Errors: INVALID_ARGUMENT another
// op, a bad rank, or a shape ValidateMoeShape refuses.
absl::StatusOr<MoeExchange> BuildMoeExchange(Op op, const MoeShape& shape,
                                             int nranks, int rank);

// Element h of token t of rank s (1..8): MoeRowValue(MoeRowKey(s, t), h).
double MoeValue(int src, int token, uint64_t h);
uint64_t MoeRowKey(int src, int token);
inline int MoeRowValue(uint64_t key, uint64_t h) {
  return static_cast<int>(((key >> (h % 61)) ^ (h / 61)) & 7) + 1;
}

// What each rank moves in one exchange, averaged over the ranks, in rows:
// to itself, to other ranks of its node, to ranks of other nodes.
// `rank_nodes[r]` names rank r's node (empty: every rank on its own node).
struct MoeRowsByPath {
  double self = 0;
  double intra_node = 0;
  double network = 0;
};
// busbw / algbw of a moe step: the rows a rank receives from other ranks,
// averaged over the ranks, per token it holds (algbw counts one rank's
// tokens, tokens x hidden x element size, per second; busbw what crossed
// a link). 0 at one rank.
// `op`'s rows counted at their size (a dispatch row may carry scales and
// a header).
double MoeBusBandwidthFactor(const MoeShape& shape, Op op, int nranks);

// The most bytes of send plus receive rows any rank needs for one exchange
// (rows at the larger of dispatch's and combine's row size).
uint64_t MoeMaxBufferBytes(const MoeShape& shape, int nranks);

// The weighted combine's output on the source: tokens x hidden float32.
uint64_t MoeWeightedOutputBytes(const MoeShape& shape);

MoeRowsByPath MoeRowsPerRank(const MoeShape& shape, int nranks,
                             const std::vector<std::string>& rank_nodes);

}  // namespace fabricpulse::core
