#include "daemon/core/moe_shape.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "daemon/core/status_macros.h"

namespace fabricpulse::core {
namespace {

absl::Status OutOfRange(absl::string_view field, absl::string_view value,
                        absl::string_view allowed) {
  return absl::InvalidArgumentError(
      absl::StrCat(field, ": ", value, " is out of range; allowed: ", allowed));
}

absl::Status CheckInt(absl::string_view field, int value, int max) {
  if (value < 1 || value > max) {
    return OutOfRange(field, absl::StrCat(value), absl::StrCat("1 to ", max));
  }
  return absl::OkStatus();
}

}  // namespace

bool operator==(const MoeShape& a, const MoeShape& b) {
  return a.tokens == b.tokens && a.hidden == b.hidden && a.topk == b.topk &&
         a.experts_per_rank == b.experts_per_rank && a.skew == b.skew &&
         a.seed == b.seed && a.dtype == b.dtype;
}

absl::Status CheckMoeDType(DType dtype) {
  if (dtype == DType::kBfloat16 || dtype == DType::kFp8E4M3) {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(
      absl::StrCat("moe_dtype: ", DTypeName(dtype),
                   " is not supported; allowed: bfloat16, fp8_e4m3"));
}

absl::StatusOr<DType> MoeDType(const MoeShape& shape) {
  absl::StatusOr<DType> dtype = ParseDType(shape.dtype);
  if (!dtype.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("moe_dtype: ", shape.dtype.substr(0, 32),
                     " is not supported; allowed: bfloat16, fp8_e4m3"));
  }
  FP_RETURN_IF_ERROR(CheckMoeDType(*dtype));
  return *dtype;
}

absl::Status ValidateMoeShape(const MoeShape& shape, int nranks) {
  FP_RETURN_IF_ERROR(CheckInt("moe_tokens", shape.tokens, kMaxMoeTokens));
  FP_RETURN_IF_ERROR(CheckInt("moe_hidden", shape.hidden, kMaxMoeHidden));
  FP_RETURN_IF_ERROR(
      CheckInt("moe_experts", shape.experts_per_rank, kMaxMoeExpertsPerRank));
  const int64_t experts =
      static_cast<int64_t>(shape.experts_per_rank) * std::max(nranks, 1);
  const int topk_max =
      static_cast<int>(std::min<int64_t>(kMaxMoeTopk, experts));
  if (shape.topk < 1 || shape.topk > topk_max) {
    return OutOfRange("moe_topk", absl::StrCat(shape.topk),
                      absl::StrCat("1 to ", topk_max, " (at most ", kMaxMoeTopk,
                                   " and at most the ", experts, " experts of ",
                                   nranks, " ranks)"));
  }
  if (!(shape.skew >= 0 && shape.skew <= kMaxMoeSkew)) {
    return OutOfRange("moe_skew", absl::StrCat(shape.skew),
                      absl::StrCat("0 to ", kMaxMoeSkew));
  }
  FP_RETURN_IF_ERROR(MoeDType(shape).status());
  const uint64_t draws = static_cast<uint64_t>(shape.tokens) * shape.topk *
                         static_cast<uint64_t>(std::max(nranks, 1));
  if (draws > kMaxMoeRoutingDraws) {
    return absl::InvalidArgumentError(absl::StrCat(
        "moe_tokens: ", shape.tokens, " tokens x top-", shape.topk, " x ",
        nranks, " ranks = ", draws,
        " routing choices, which every rank computes; allowed: at most ",
        kMaxMoeRoutingDraws));
  }
  return absl::OkStatus();
}

std::string DescribeMoeShape(const MoeShape& shape, int nranks) {
  return absl::StrFormat(
      "%d tokens x %d %s, top-%d of %d experts (%d per rank), skew %g, seed %d",
      shape.tokens, shape.hidden, shape.dtype, shape.topk,
      static_cast<int64_t>(shape.experts_per_rank) * nranks,
      shape.experts_per_rank, shape.skew, shape.seed);
}

}  // namespace fabricpulse::core
