// The MoE probe's flags of `sweep` (ops moe_dispatch, moe_combine,
// moe_combine_weighted): --moe-tokens, --moe-hidden, --moe-topk,
// --moe-experts, --moe-skew, --moe-seed, --moe-dtype, bound to a
// core::MoeShape (ranges are checked by core::ValidateMoeShape where the
// sweep runs), and --moe-preset (core/moe_preset.h), which the others
// given override.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "daemon/core/moe_shape.h"

namespace fabricpulse::client {

// Adds the flags to `sweep`; returns them (a plan excludes them).
// `explicit_keys` collects the plan keys (moe_tokens, ...) of the shape
// flags given.
std::vector<CLI::Option*> AddMoeOptions(
    CLI::App* sweep, core::MoeShape& moe, std::string& preset,
    std::vector<std::string>& explicit_keys);

}  // namespace fabricpulse::client
