// A plan's MoE keys (moe_tokens, moe_hidden, moe_topk, moe_experts,
// moe_skew, moe_seed, moe_dtype): the shape of its moe_dispatch and
// moe_combine ops. Declared in plan_parser.h.
#include <algorithm>
#include <climits>

#include "absl/strings/str_cat.h"
#include "daemon/core/plan_parser.h"

namespace fabricpulse::core::config_internal {
namespace {

constexpr absl::string_view kMoeKeys[] = {
    "moe_tokens", "moe_hidden", "moe_topk", "moe_experts",
    "moe_skew",   "moe_seed",   "moe_dtype"};

}  // namespace

bool IsMoePlanKey(absl::string_view key) {
  return std::find(std::begin(kMoeKeys), std::end(kMoeKeys), key) !=
         std::end(kMoeKeys);
}

std::vector<absl::string_view> MoePlanKeys() {
  return {std::begin(kMoeKeys), std::end(kMoeKeys)};
}

absl::Status ReadMoePlanField(absl::string_view key, const Field& field,
                              absl::string_view path, MoeShape& moe) {
  if (key == "moe_skew") {
    absl::StatusOr<double> skew = ReadDouble(field, path);
    if (!skew.ok()) return skew.status();
    moe.skew = *skew;
    return absl::OkStatus();
  }
  if (key == "moe_dtype") {
    absl::StatusOr<std::string> dtype = ReadString(field, path);
    if (!dtype.ok()) return dtype.status();
    moe.dtype = *dtype;
    return absl::OkStatus();
  }
  if (key == "moe_seed") {
    absl::StatusOr<int64_t> seed = ReadInt(field, path);
    if (!seed.ok()) return seed.status();
    if (*seed < 0) {
      return ConfigError(
          field.line, path,
          absl::StrCat(*seed, " is out of range; allowed: 0 or more"));
    }
    moe.seed = static_cast<uint64_t>(*seed);
    return absl::OkStatus();
  }
  int* target = key == "moe_tokens"   ? &moe.tokens
                : key == "moe_hidden" ? &moe.hidden
                : key == "moe_topk"   ? &moe.topk
                                      : &moe.experts_per_rank;
  // Ranges are Validate's (ValidateMoeShape) to check.
  return ReadIntInto(field, path, "1 or more", target);
}

}  // namespace fabricpulse::core::config_internal
