// DeepEP's test shapes as MoE probe presets (--moe-preset, a plan's
// moe_preset), from DeepEP's tests/legacy/test_low_latency.py,
// test_intranode.py and test_internode.py:
//
//   deepep-ll      128 tokens x 7168, top-8 of 288 experts in all, 10
//                  selections masked per rank, a row per selection, fp8
//                  dispatch with per-128-element float32 scales and a
//                  16-byte header, bfloat16 combine.
//   deepep-normal  4096 tokens x 7168, top-8 of 256 experts in all, routed
//                  within min(nodes, 4) node groups, a row per destination
//                  rank, fp8 dispatch with scales, bfloat16 combine.
//
// The nranks- and node-dependent parts (experts per rank, ranks per group)
// are resolved by ResolveMoeForRanks where the sweep is planned.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "daemon/core/moe_shape.h"

namespace fabricpulse::core {

// DeepEP's constants.
inline constexpr int kDeepEpLowLatencyTokens = 128;
inline constexpr int kDeepEpNormalTokens = 4096;
inline constexpr int kDeepEpHidden = 7168;
inline constexpr int kDeepEpTopk = 8;
inline constexpr int kDeepEpLowLatencyExperts = 288;
inline constexpr int kDeepEpNormalExperts = 256;
inline constexpr int kDeepEpMaskedSelections = 10;
inline constexpr int kDeepEpHeaderBytes = 16;
inline constexpr int kDeepEpMaxTopkGroups = 4;

// The presets' names, in the order help lists them.
std::vector<std::string> MoePresetNames();

// Sets `shape` to preset `name`, except the fields whose plan keys
// (moe_tokens, moe_hidden, moe_topk, moe_experts, moe_skew, moe_seed,
// moe_dtype) are in `explicit_keys`: those keep their value (a reduced
// preset). An explicit moe_experts (per rank) clears experts_total.
// Errors: INVALID_ARGUMENT "moe_preset: ..." naming the allowed presets.
absl::Status ApplyMoePreset(absl::string_view name,
                            const std::vector<std::string>& explicit_keys,
                            MoeShape& shape);

// Where the sweep's ranks are known: experts_per_rank from experts_total
// (rounded down, at least 1), and group_ranks (for topk_groups > 0) from
// `ranks_per_node` (each node's rank count, nodes in rank order) when
// every node has as many ranks (else one group).
void ResolveMoeForRanks(MoeShape& shape, int nranks,
                        const std::vector<int>& ranks_per_node);

}  // namespace fabricpulse::core
