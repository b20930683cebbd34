#include "daemon/core/moe_preset.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace fabricpulse::core {
namespace {

bool Explicit(const std::vector<std::string>& keys, absl::string_view key) {
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}

// The preset's values of the keys a user may also set.
struct PresetBase {
  int tokens;
  int experts_total;
};

}  // namespace

std::vector<std::string> MoePresetNames() {
  return {"deepep-ll", "deepep-normal"};
}

absl::Status ApplyMoePreset(absl::string_view name,
                            const std::vector<std::string>& explicit_keys,
                            MoeShape& shape) {
  PresetBase base;
  if (name == "deepep-ll") {
    base = {kDeepEpLowLatencyTokens, kDeepEpLowLatencyExperts};
  } else if (name == "deepep-normal") {
    base = {kDeepEpNormalTokens, kDeepEpNormalExperts};
  } else {
    return absl::InvalidArgumentError(absl::StrCat(
        "moe_preset: ", name.substr(0, 32),
        " is not a preset; allowed: ", absl::StrJoin(MoePresetNames(), ", ")));
  }
  const bool low_latency = name == "deepep-ll";
  const MoeShape defaults;
  auto set = [&](absl::string_view key, auto& field, auto value) {
    if (!Explicit(explicit_keys, key)) field = value;
  };
  set("moe_tokens", shape.tokens, base.tokens);
  set("moe_hidden", shape.hidden, kDeepEpHidden);
  set("moe_topk", shape.topk, kDeepEpTopk);
  set("moe_skew", shape.skew, 0.0);
  set("moe_seed", shape.seed, defaults.seed);
  set("moe_dtype", shape.dtype, std::string("fp8_e4m3"));
  shape.experts_total =
      Explicit(explicit_keys, "moe_experts") ? 0 : base.experts_total;
  shape.preset = std::string(name);
  shape.group_ranks = 0;
  shape.topk_groups = low_latency ? 0 : kDeepEpMaxTopkGroups;
  shape.masked = low_latency ? kDeepEpMaskedSelections : 0;
  shape.per_selection = low_latency;
  shape.fp8_scales = true;
  shape.header_bytes = low_latency ? kDeepEpHeaderBytes : 0;
  shape.combine_dtype = "bfloat16";
  return absl::OkStatus();
}

void ResolveMoeForRanks(MoeShape& shape, int nranks,
                        const std::vector<int>& ranks_per_node) {
  if (shape.experts_total > 0 && nranks > 0) {
    shape.experts_per_rank = std::max(1, shape.experts_total / nranks);
  }
  if (shape.topk_groups > 0 && shape.group_ranks == 0 &&
      !ranks_per_node.empty()) {
    const int first = ranks_per_node.front();
    const bool even =
        first > 0 && std::all_of(ranks_per_node.begin(), ranks_per_node.end(),
                                 [&](int n) { return n == first; });
    // One group per node (DeepEP: a node's experts are one group).
    if (even && ranks_per_node.size() > 1) shape.group_ranks = first;
  }
}

}  // namespace fabricpulse::core
