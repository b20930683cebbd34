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
};

bool operator==(const MoeShape& a, const MoeShape& b);

// OK for the probe's dtypes (bfloat16, fp8_e4m3). Errors: INVALID_ARGUMENT
// naming the field moe_dtype and the allowed names.
absl::Status CheckMoeDType(DType dtype);

// The shape's dtype (bfloat16 or fp8_e4m3). Errors: INVALID_ARGUMENT
// naming the field moe_dtype and the allowed names.
absl::StatusOr<DType> MoeDType(const MoeShape& shape);

// Checks every field against its range for `nranks` ranks. Errors:
// INVALID_ARGUMENT whose message starts with the field (moe_tokens,
// moe_hidden, moe_topk, moe_experts, moe_skew, moe_dtype), then the value
// and the allowed range.
absl::Status ValidateMoeShape(const MoeShape& shape, int nranks);

// "4096 tokens x 7168 bfloat16, top-8 of 16 experts (8 per rank), skew 0,
// seed 1".
std::string DescribeMoeShape(const MoeShape& shape, int nranks);

}  // namespace fabricpulse::core
