// `fabricpulse local`: a coordinator and agents on this machine, for one
// command.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "client/cli/command_set.h"
#include "client/local/local_cluster.h"

namespace fabricpulse::client {

struct LocalFlags {
  std::string backend = "auto";
  int agents = 1;
  // Ranks per agent. Not given (`ranks_given` false): 2 with Gloo; with
  // NCCL one rank per visible GPU, shared evenly among the agents.
  int ranks = 2;
  bool ranks_given = false;
  // --state-dir: the coordinator's history kept here across runs (created
  // 0700 when missing); empty: a temporary folder, removed at the end.
  std::string state_dir;
  // --config: the coordinator's config (plans, schedules, baselines), checked
  // before anything starts; empty: none.
  std::string config;
};

// The ranks per agent `local` runs NCCL with: `flags.ranks` when given,
// else the visible GPUs shared evenly among the agents (at least 1; a
// machine with fewer GPUs than agents is then refused by
// ResolveLocalBackend, as too few GPUs for agents x 1).
int LocalNcclRanks(const LocalFlags& flags, int visible_gpus);

// Puts --config (loaded and checked first) and --state-dir (created 0700
// when missing, must be a folder) into `options`. Errors: INVALID_ARGUMENT,
// one line naming the flag; nothing is changed then.
absl::Status UseLocalStateAndConfig(const LocalFlags& flags,
                                    LocalClusterOptions& options);

// Checks the command's flags, starts the local cluster (the backend as
// `flags` ask: auto picks NCCL on visible GPUs when the worker has it, else
// Gloo), runs the parsed command of `set` against it and tears it down,
// also on SIGINT/SIGTERM. Returns the command's exit code.
int RunLocal(const LocalFlags& flags, const CommandSet& set);

}  // namespace fabricpulse::client
