// Which backend an agent runs and on which devices.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "daemon/agent/agent_config.h"

namespace fabricpulse::agent {

struct BackendSelection {
  std::string backend;  // "gloo" or "nccl"
  std::string version;  // e.g. "nccl 2.28.9", "gloo 0.5.0"
  // One entry per worker: its GPU index, or -1 for a CPU rank.
  std::vector<int> gpus;
};

// `auto` is NCCL when this build has it and a GPU is visible, else Gloo.
// NCCL runs one worker per GPU: --gpus, or the first --ranks visible GPUs,
// or all visible GPUs. Errors: FAILED_PRECONDITION nccl asked for but not
// built in or no GPU visible; INVALID_ARGUMENT a --gpus index that is not
// visible.
absl::StatusOr<BackendSelection> SelectBackend(const AgentConfig& config);

}  // namespace fabricpulse::agent
