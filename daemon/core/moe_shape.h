// The MoE dispatch/combine probe's shape (ops moe_dispatch, moe_combine):
// DeepEP's test parameters. Every rank holds `tokens` tokens of `hidden`
// elements; each token picks `topk` distinct experts out of
// experts_per_rank x nranks by a seeded routing every rank computes
// (moe_routing.h); dispatch sends each token's row once to every rank that
// hosts one of its experts (an all-to-all-v), combine sends the rows back
// and the source reduces them.
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "daemon/core/dtype.h"
#include "daemon/core/op_traits.h"

namespace fabricpulse::core {

// Defaults: DeepEP's test shape (4096 tokens of 7168 bf16, top-8, 8 experts
// per rank), uniform routing.
inline constexpr int kDefaultMoeTokens = 4096;
inline constexpr int kDefaultMoeHidden = 7168;
inline constexpr int kDefaultMoeTopk = 8;
inline constexpr int kDefaultMoeExpertsPerRank = 8;
// Limits that ValidateMoeShape enforces.
inline constexpr int kMaxMoeTokens = 1 << 16;
inline constexpr int kMaxMoeHidden = 1 << 16;
inline constexpr int kMaxMoeTopk = 32;
inline constexpr int kMaxMoeExpertsPerRank = 256;
inline constexpr double kMaxMoeSkew = 4;
inline constexpr int kMaxMoeExpertsTotal = 1 << 16;
inline constexpr int kMaxMoeHeaderBytes = 64;
// Every rank computes the whole routing (tokens x topk draws per rank):
// tokens x topk x nranks is bounded so that it stays well under a second.
inline constexpr uint64_t kMaxMoeRoutingDraws = 1ull << 26;

struct MoeShape {
  int tokens = kDefaultMoeTokens;
  int hidden = kDefaultMoeHidden;
  int topk = kDefaultMoeTopk;
  int experts_per_rank = kDefaultMoeExpertsPerRank;
  // Zipf exponent of the experts' popularity: expert e is chosen with
  // weight 1 / (e + 1)^skew (0: uniform; larger: the low experts, on the
  // low ranks, get more tokens).
  double skew = 0;
  uint64_t seed = 1;
  // bfloat16 (DeepEP's dispatch and combine), or fp8_e4m3 (its fp8
  // dispatch).
  std::string dtype = "bfloat16";

  // DeepEP's shapes (moe_preset.h); every field below keeps today's probe
  // at its default.
  // The preset the shape came from: "" (none), "deepep-ll" or
  // "deepep-normal" (a label; the fields below say what it does).
  std::string preset;
  // Experts in all (DeepEP's num_experts); when > 0 the coordinator sets
  // experts_per_rank to experts_total / nranks, rounded down.
  int experts_total = 0;
  // Ranks per expert group (DeepEP's node, whose experts form one group);
  // 0: one group. The coordinator sets it to the ranks per node when
  // topk_groups > 0 and every node has as many ranks.
  int group_ranks = 0;
  // Groups a token's experts may come from (DeepEP's num_topk_groups,
  // at most the groups there are); 0: all (free top-k).
  int topk_groups = 0;
  // Selections set to -1 on each rank (DeepEP's low-latency test masks 10
  // random (token, slot) positions, a position may repeat).
  int masked = 0;
  // One row per (token, expert) selection (DeepEP's low-latency kernels),
  // instead of one row per (token, destination rank).
  bool per_selection = false;
  // fp8 dispatch rows carry hidden / 128 float32 scales (DeepEP's
  // per-token-block cast); hidden must be a multiple of 128.
  bool fp8_scales = false;
  // Bytes of a message header each dispatch row carries (DeepEP's
  // low-latency messages: 16).
  int header_bytes = 0;
  // The combine's dtype ("": the dispatch's; DeepEP combines in bfloat16).
  std::string combine_dtype;
};

bool operator==(const MoeShape& a, const MoeShape& b);

// OK for the probe's dtypes (bfloat16, fp8_e4m3). Errors: INVALID_ARGUMENT
// naming the field moe_dtype and the allowed names.
absl::Status CheckMoeDType(DType dtype);

// The shape's dtype (bfloat16 or fp8_e4m3). Errors: INVALID_ARGUMENT
// naming the field moe_dtype and the allowed names.
absl::StatusOr<DType> MoeDType(const MoeShape& shape);

// The dtype of `op`'s rows: combine_dtype for the combine ops when set,
// else the shape's dtype (bfloat16 when not valid).
DType MoeStepDType(const MoeShape& shape, Op op);

// Elements of one row of `op` in MoeStepDType: hidden, plus for dispatch
// the fp8 scales and the header (as elements of that dtype).
uint64_t MoeRowElements(const MoeShape& shape, Op op);

// Expert groups: nranks / group_ranks (1 without groups).
int MoeGroups(const MoeShape& shape, int nranks);
// The groups a token picks from: topk_groups capped by the groups (all
// when 0).
int MoeTopkGroups(const MoeShape& shape, int nranks);

// Checks every field against its range for `nranks` ranks. Errors:
// INVALID_ARGUMENT whose message starts with the field (moe_tokens,
// moe_hidden, moe_topk, moe_experts, moe_skew, moe_dtype, and for the
// preset's fields moe_preset, moe_experts_total, moe_group_ranks,
// moe_topk_groups, moe_masked, moe_header_bytes, moe_combine_dtype), then
// the value and the allowed range.
absl::Status ValidateMoeShape(const MoeShape& shape, int nranks);

// "4096 tokens x 7168 bfloat16, top-8 of 16 experts (8 per rank), skew 0,
// seed 1".
std::string DescribeMoeShape(const MoeShape& shape, int nranks);

}  // namespace fabricpulse::core
