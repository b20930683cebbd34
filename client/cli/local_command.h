// `fabricpulse local`: a coordinator and agents on this machine, for one
// command.
#pragma once

#include <string>

#include "client/cli/command_set.h"

namespace fabricpulse::client {

struct LocalFlags {
  std::string backend = "auto";
  int agents = 1;
  int ranks = 2;
};

// Checks the command's flags, starts the local cluster (the backend as
// `flags` ask: auto picks NCCL on visible GPUs when the worker has it, else
// Gloo), runs the parsed command of `set` against it and tears it down,
// also on SIGINT/SIGTERM. Returns the command's exit code.
int RunLocal(const LocalFlags& flags, const CommandSet& set);

}  // namespace fabricpulse::client
