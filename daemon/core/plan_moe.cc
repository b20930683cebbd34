// A plan's MoE keys (moe_tokens, moe_hidden, moe_topk, moe_experts,
// moe_skew, moe_seed, moe_dtype, moe_preset): the shape of its moe ops.
// Declared in plan_parser.h.
#include <algorithm>
#include <climits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "daemon/core/moe_preset.h"
#include "daemon/core/name_rules.h"
#include "daemon/core/plan_parser.h"

namespace fabricpulse::core::config_internal {
namespace {

constexpr absl::string_view kMoeKeys[] = {
    "moe_tokens", "moe_hidden", "moe_topk",  "moe_experts",
    "moe_skew",   "moe_seed",   "moe_dtype", "moe_preset"};

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
  if (key == "moe_dtype" || key == "moe_preset") {
    absl::StatusOr<std::string> text = ReadString(field, path);
    if (!text.ok()) return text.status();
    (key == "moe_dtype" ? moe.dtype : moe.preset) = *text;
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

absl::Status ApplyMoePlanPreset(const Fields& fields, absl::string_view path,
                                MoeShape& moe) {
  const auto preset = fields.find("moe_preset");
  if (preset == fields.end()) return absl::OkStatus();
  std::vector<std::string> explicit_keys;
  for (const auto& [key, field] : fields) {
    if (IsMoePlanKey(key)) explicit_keys.push_back(key);
  }
  const std::string name = moe.preset;
  absl::Status applied = ApplyMoePreset(name, explicit_keys, moe);
  if (applied.ok()) return applied;
  return ConfigError(
      preset->second.line, JoinPath(path, "moe_preset"),
      absl::StrCat(QuotePrefix(name), " is not a preset; allowed: ",
                   absl::StrJoin(MoePresetNames(), ", ")));
}

}  // namespace fabricpulse::core::config_internal
