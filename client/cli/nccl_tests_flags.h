// nccl-tests' letters on `sweep` (issue 33): what a user of nccl-tests types
// out of habit works here, or is refused saying why.
//
// The one rule where nccl-tests' and kubectl's letters collide: `-o` is the
// output format on every command that has one (kubectl's habit; `report -o`
// is its output file, the only output it has); nccl-tests' `-o` (reduction
// op) is `--redop` only. Otherwise nccl-tests' letters mean on `sweep` what
// they mean there:
//  - the same setting under a short name (set by AddSweepFlags): -b
//    --min-bytes, -e --max-bytes, -f --factor, -i --step, -n --iters, -w
//    --warmup, -d --dtype, -r --root, -T --timeout (seconds, or a duration);
//  - numeric forms (AddNcclTestsNumericFlags): -c N (N > 0 checks the data,
//    --check; 0 skips it, --no-check), -G N (N > 0: CUDA-graph mode,
//    --graph; 0: off), -a N (1 avg, 2 min, 3 max: --time-across-ranks; 0,
//    rank 0's time, is refused naming the allowed values);
//  - no equivalent (NcclTestsFlagWithoutEquivalent says why): -t -g -m -N
//    -p -z -C -R.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "client/commands/sweep_command.h"

namespace fabricpulse::client {

// Adds -c, -G and -a to `sweep`; returns -c and -G (spec flags, which a
// --plan excludes like the others).
std::vector<CLI::Option*> AddNcclTestsNumericFlags(CLI::App* sweep,
                                                   SweepFlags& f);

// Why nccl-tests' `flag` ("-g") has no equivalent on sweep, in one clause;
// nullopt for any other word.
std::optional<std::string> NcclTestsFlagWithoutEquivalent(
    absl::string_view flag);

}  // namespace fabricpulse::client
