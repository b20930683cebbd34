// A sweep spec's sizes and iteration counts in words, as `config check` and
// `plans` print them.
#pragma once

#include <string>

#include "daemon/core/sweep_spec.h"

namespace fabricpulse::client {

// "8 B to 1 GiB (factor 2)", "1 MiB to auto:0.25 of free memory (step
// 64 MiB)".
std::string SizesText(const core::SweepSpec& spec);

// "20 iters", or "iters auto (1 % tolerance, 5 to 100, 2s cap per size)".
std::string IterationsText(const core::SweepSpec& spec);

}  // namespace fabricpulse::client
