#include "daemon/core/moe_shape.h"

#include <algorithm>
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

absl::Status ValidatePresetFields(const MoeShape& shape, int nranks) {
  if (!shape.preset.empty() && shape.preset != "deepep-ll" &&
      shape.preset != "deepep-normal") {
    return absl::InvalidArgumentError(
        absl::StrCat("moe_preset: ", shape.preset.substr(0, 32),
                     " is not a preset; allowed: deepep-ll, deepep-normal"));
  }
  if (shape.experts_total < 0 || shape.experts_total > kMaxMoeExpertsTotal) {
    return OutOfRange("moe_experts_total", absl::StrCat(shape.experts_total),
                      absl::StrCat("0 to ", kMaxMoeExpertsTotal));
  }
  if (shape.group_ranks < 0 ||
      (shape.group_ranks > 0 && nranks % shape.group_ranks != 0)) {
    return OutOfRange(
        "moe_group_ranks", absl::StrCat(shape.group_ranks),
        absl::StrCat("0 (one group) or a divisor of the ", nranks, " ranks"));
  }
  if (shape.topk_groups < 0 || shape.topk_groups > kMaxMoeTopk) {
    return OutOfRange("moe_topk_groups", absl::StrCat(shape.topk_groups),
                      absl::StrCat("0 (all groups) to ", kMaxMoeTopk));
  }
  const int groups = MoeGroups(shape, nranks);
  const int64_t picked_experts =
      static_cast<int64_t>(MoeTopkGroups(shape, nranks)) *
      shape.experts_per_rank * nranks / groups;
  if (MoeTopkGroups(shape, nranks) < groups && shape.topk > picked_experts) {
    return OutOfRange("moe_topk", absl::StrCat(shape.topk),
                      absl::StrCat("1 to ", picked_experts, " (the experts of ",
                                   MoeTopkGroups(shape, nranks), " groups)"));
  }
  if (MoeTopkGroups(shape, nranks) < groups && shape.skew != 0) {
    return OutOfRange("moe_skew", absl::StrCat(shape.skew),
                      "0 with group-limited routing (moe_topk_groups)");
  }
  const int64_t selections = static_cast<int64_t>(shape.tokens) * shape.topk;
  if (shape.masked < 0 || shape.masked > selections) {
    return OutOfRange("moe_masked", absl::StrCat(shape.masked),
                      absl::StrCat("0 to ", selections, " (tokens x top-k)"));
  }
  if (shape.header_bytes < 0 || shape.header_bytes > kMaxMoeHeaderBytes ||
      shape.header_bytes % 2 != 0) {
    return OutOfRange(
        "moe_header_bytes", absl::StrCat(shape.header_bytes),
        absl::StrCat("an even number, 0 to ", kMaxMoeHeaderBytes));
  }
  if (!shape.combine_dtype.empty()) {
    MoeShape combine = shape;
    combine.dtype = shape.combine_dtype;
    absl::StatusOr<DType> dtype = MoeDType(combine);
    if (!dtype.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("moe_combine_dtype: ", shape.combine_dtype.substr(0, 32),
                       " is not supported; allowed: bfloat16, fp8_e4m3"));
    }
  }
  if (shape.fp8_scales && shape.dtype == "fp8_e4m3" &&
      shape.hidden % 128 != 0) {
    return OutOfRange("moe_hidden", absl::StrCat(shape.hidden),
                      "a multiple of 128 with fp8 scales (DeepEP's "
                      "per-128-element cast)");
  }
  return absl::OkStatus();
}

}  // namespace

bool operator==(const MoeShape& a, const MoeShape& b) {
  return a.tokens == b.tokens && a.hidden == b.hidden && a.topk == b.topk &&
         a.experts_per_rank == b.experts_per_rank && a.skew == b.skew &&
         a.seed == b.seed && a.dtype == b.dtype && a.preset == b.preset &&
         a.experts_total == b.experts_total && a.group_ranks == b.group_ranks &&
         a.topk_groups == b.topk_groups && a.masked == b.masked &&
         a.per_selection == b.per_selection && a.fp8_scales == b.fp8_scales &&
         a.header_bytes == b.header_bytes && a.combine_dtype == b.combine_dtype;
}

DType MoeStepDType(const MoeShape& shape, Op op) {
  if (IsMoeCombine(op) && !shape.combine_dtype.empty()) {
    MoeShape combine = shape;
    combine.dtype = shape.combine_dtype;
    return MoeDType(combine).value_or(DType::kBfloat16);
  }
  return MoeDType(shape).value_or(DType::kBfloat16);
}

uint64_t MoeRowElements(const MoeShape& shape, Op op) {
  const uint64_t hidden = static_cast<uint64_t>(shape.hidden);
  if (op != Op::kMoeDispatch) return hidden;
  const DType dtype = MoeStepDType(shape, op);
  const uint64_t elem = DTypeSize(dtype);
  uint64_t extra = static_cast<uint64_t>(shape.header_bytes);
  if (shape.fp8_scales && dtype == DType::kFp8E4M3) extra += hidden / 128 * 4;
  return hidden + extra / elem;
}

int MoeGroups(const MoeShape& shape, int nranks) {
  if (shape.group_ranks <= 0 || nranks % shape.group_ranks != 0) return 1;
  return nranks / shape.group_ranks;
}

int MoeTopkGroups(const MoeShape& shape, int nranks) {
  const int groups = MoeGroups(shape, nranks);
  return shape.topk_groups <= 0 ? groups : std::min(shape.topk_groups, groups);
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
  FP_RETURN_IF_ERROR(CheckInt(
      "moe_experts", shape.experts_per_rank,
      // A preset's total on few ranks (deepep-ll: 288 on one).
      shape.experts_total > 0 ? shape.experts_total : kMaxMoeExpertsPerRank));
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
  FP_RETURN_IF_ERROR(ValidatePresetFields(shape, nranks));
  // Group-limited routing scores every expert of every token.
  const uint64_t per_token =
      MoeTopkGroups(shape, nranks) < MoeGroups(shape, nranks)
          ? static_cast<uint64_t>(experts)
          : static_cast<uint64_t>(shape.topk);
  const uint64_t draws = static_cast<uint64_t>(shape.tokens) * per_token *
                         static_cast<uint64_t>(std::max(nranks, 1));
  if (draws > kMaxMoeRoutingDraws) {
    return absl::InvalidArgumentError(absl::StrCat(
        "moe_tokens: ", shape.tokens, " tokens x ", per_token, " draws x ",
        nranks, " ranks = ", draws,
        " routing choices, which every rank computes; allowed: at most ",
        kMaxMoeRoutingDraws));
  }
  return absl::OkStatus();
}

std::string DescribeMoeShape(const MoeShape& shape, int nranks) {
  std::string out = absl::StrFormat(
      "%d tokens x %d %s, top-%d of %d experts (%d per rank), skew %g, seed %d",
      shape.tokens, shape.hidden, shape.dtype, shape.topk,
      static_cast<int64_t>(shape.experts_per_rank) * nranks,
      shape.experts_per_rank, shape.skew, shape.seed);
  if (shape.preset.empty()) return out;
  absl::StrAppend(&out, "; preset ", shape.preset, ":");
  if (MoeTopkGroups(shape, nranks) < MoeGroups(shape, nranks)) {
    absl::StrAppend(&out, " top-", MoeTopkGroups(shape, nranks), " of ",
                    MoeGroups(shape, nranks), " groups,");
  }
  if (shape.masked > 0) {
    absl::StrAppend(&out, " ", shape.masked, " selections masked,");
  }
  absl::StrAppend(&out, shape.per_selection ? " a row per selection"
                                            : " a row per destination rank");
  if (shape.fp8_scales && shape.dtype == "fp8_e4m3") {
    absl::StrAppend(&out, ", fp8 scales");
  }
  if (shape.header_bytes > 0) {
    absl::StrAppend(&out, ", ", shape.header_bytes, "-byte header");
  }
  if (!shape.combine_dtype.empty()) {
    absl::StrAppend(&out, ", combine in ", shape.combine_dtype);
  }
  return out;
}

}  // namespace fabricpulse::core
