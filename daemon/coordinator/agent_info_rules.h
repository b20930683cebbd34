// What an agent may say about itself: the checks the coordinator applies to
// every AgentInfo an agent sends (Register, Describe answers) and to the
// workers of every heartbeat, so that no agent can grow the membership
// table, a log line or a response beyond the bounds of core/limits.h.
//
// Thread-safety: pure functions.
#pragma once

#include <vector>

#include "absl/status/status.h"
#include "fabricpulse/v1/types.pb.h"

namespace fabricpulse::coordinator {

// Checks an agent's description: node_name (core::ValidateNodeName),
// address, backend (a name of at most 16 of [a-z0-9_]), backend_version
// (printable, core::kMaxFreeTextLength), instance_id, boot_id and
// running_sweep (ids, may be empty), at most core::kMaxNicsPerAgent nics
// (each named by 1 to core::kMaxNicNameLength printable characters, kind
// infiniband, ethernet or other, state up, down or unknown), and 1 to
// core::kMaxWorkersPerAgent workers, labels (core::ValidateLabels)
// (CheckWorkers with no registered count). Errors: INVALID_ARGUMENT naming the
// field, its bound and the value's length, quoting at most a short prefix.
absl::Status ValidateAgentInfo(const v1::AgentInfo& info);

// Checks a NIC list: at most core::kMaxNicsPerAgent, each named by 1 to
// core::kMaxNicNameLength printable characters, kind infiniband, ethernet
// or other, state up, down or unknown. Errors: INVALID_ARGUMENT "nics...".
absl::Status CheckNics(
    const google::protobuf::RepeatedPtrField<v1::NicInfo>& nics);

// Checks a worker list: at most `registered` workers (the count the agent
// registered with; core::kMaxWorkersPerAgent when negative), each with a
// distinct local_index in [0, that count), an incarnation id, gpu and pid
// >= -1 (a CPU rank, a worker not started yet), non-negative counts, a
// printable gpu_model of at most core::kMaxGpuModelLength and pci_bus_id of
// at most core::kMaxPciBusIdLength, and at most core::kMaxNvlinkPeersPerGpu
// nvlink_peers, each 0 to 1023, and nvlink_active_links 0 to 64. Errors:
// INVALID_ARGUMENT "workers: ..." naming the bound or the first bad worker.
absl::Status CheckWorkers(const std::vector<v1::WorkerInfo>& workers,
                          int registered);

}  // namespace fabricpulse::coordinator
