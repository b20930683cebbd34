// `fabricpulse local`: a coordinator and agents on this machine, for one
// command.
#pragma once

#include <string>

#include "client/cli/command_set.h"

namespace fabricpulse::client {

struct LocalFlags {
  std::string backend = "auto";
  int agents = 1;
  // Ranks per agent. Not given (`ranks_given` false): 2 with Gloo; with
  // NCCL one rank per visible GPU, shared evenly among the agents.
  int ranks = 2;
  bool ranks_given = false;
};

// The ranks per agent `local` runs NCCL with: `flags.ranks` when given,
// else the visible GPUs shared evenly among the agents (at least 1; a
// machine with fewer GPUs than agents is then refused by
// ResolveLocalBackend, as too few GPUs for agents x 1).
int LocalNcclRanks(const LocalFlags& flags, int visible_gpus);

// Checks the command's flags, starts the local cluster (the backend as
// `flags` ask: auto picks NCCL on visible GPUs when the worker has it, else
// Gloo), runs the parsed command of `set` against it and tears it down,
// also on SIGINT/SIGTERM. Returns the command's exit code.
int RunLocal(const LocalFlags& flags, const CommandSet& set);

}  // namespace fabricpulse::client
