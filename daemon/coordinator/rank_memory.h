// Each rank's free-memory figure for --max-bytes auto
// (core/auto_max_bytes.h), from the members' fresh descriptions
// (WorkerInfo.free_memory_bytes, agent/free_memory.h).
//
// Ranks are numbered as SweepRunner::AssignRanks numbers them: agents in
// order, each agent's workers in local order. Ranks that draw on one pool
// share its figure evenly: the ranks of one GPU, and the CPU ranks of one
// machine (its host memory), whichever agents they belong to. A machine is
// known by its boot id (from the agent's registration), or by the node name
// when the agent reported none.
//
// Thread-safety: a pure function.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "daemon/core/auto_max_bytes.h"
#include "fabricpulse/v1/types.pb.h"

namespace fabricpulse::coordinator {

// `boot_ids[i]` is agents[i]'s machine (empty: unknown); shorter than
// `agents` counts as empty. Errors: FAILED_PRECONDITION naming the first
// rank whose agent reported no figure (NVML not loaded for a GPU rank, an
// unreadable /proc/meminfo), and what to do instead.
absl::StatusOr<std::vector<core::RankMemory>> RankMemories(
    const std::vector<v1::AgentInfo>& agents,
    const std::vector<std::string>& boot_ids);

}  // namespace fabricpulse::coordinator
