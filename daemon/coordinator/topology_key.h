// The topology a sweep's baselines are kept apart by (SweepPlan.topology,
// the history's sweeps.topology): the members' shape, and what of their
// hardware changes the numbers.
//
//   shape:  BACKEND:NODExRANKS,...   e.g. "nccl:node-ax8,node-bx8"
//   key:    shape, and when any GPU rank reports GPU facts (agent NVML),
//           ";gpu=MODEL+MODEL;nvlink=CLASS": the distinct GPU models sorted
//           ("unknown" for a GPU rank whose model NVML did not give), and
//           the members' NVLink connectivity: "full" when within every
//           node every two GPU ranks' GPUs are NVLink peers, "none" when no
//           two are (or no node has two GPU ranks), else "partial".
// CPU (Gloo) ranks report no GPU facts, so their key is the shape, as
// before this key grew: their stored baselines still apply. The order is
// the members' (sorted by node name) and the model list sorted: the same
// members on the same hardware always give the same key.
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "fabricpulse/v1/types.pb.h"

namespace fabricpulse::coordinator {

// The key of `agents` (the sweep's members, in member order) on `backend`.
std::string TopologyKey(const std::string& backend,
                        const std::vector<v1::AgentInfo>& agents);

// The shape part of a key: up to its first ';'.
absl::string_view TopologyShape(absl::string_view key);

// The hardware part of a key: after its first ';' ("" for a bare shape).
absl::string_view TopologyHardware(absl::string_view key);

}  // namespace fabricpulse::coordinator
