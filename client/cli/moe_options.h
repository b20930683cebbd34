// The MoE probe's flags of `sweep` (ops moe_dispatch and moe_combine):
// --moe-tokens, --moe-hidden, --moe-topk, --moe-experts, --moe-skew,
// --moe-seed, --moe-dtype, bound to a core::MoeShape (ranges are checked
// by core::ValidateMoeShape where the sweep runs).
#pragma once

#include <CLI/CLI.hpp>
#include <vector>

#include "daemon/core/moe_shape.h"

namespace fabricpulse::client {

// Adds the flags to `sweep`; returns them (a plan excludes them).
std::vector<CLI::Option*> AddMoeOptions(CLI::App* sweep, core::MoeShape& moe);

}  // namespace fabricpulse::client
