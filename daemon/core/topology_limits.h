// Bounds on the topology an agent reports (issue 15): what
// coordinator/agent_info_rules.h enforces on arrival and the agent keeps
// to (daemon/agent/nic_reader.h, gpu_topology.h). Beside limits.h, which
// holds every other bound; tests/unit/coordinator/message_bounds_test.cc
// counts these in the largest ListAgents.
#pragma once

#include <cstddef>

namespace fabricpulse::core {

// Network interfaces per agent (AgentInfo.nics): the first ones by name;
// the agent logs how many it leaves out. A DGX-class node has about 12 (8
// compute HCAs, storage, management); at kMaxAgentsLimit agents the NICs
// take ~13 MB of ListAgents.
inline constexpr size_t kMaxNicsPerAgent = 16;
// An interface name: the kernel's IFNAMSIZ less its terminating NUL.
inline constexpr size_t kMaxNicNameLength = 15;
// NVLink peers of one GPU (WorkerInfo.nvlink_peers): the other GPUs of its
// machine (7 on an 8-GPU HGX board), at most 32 listed.
inline constexpr size_t kMaxNvlinkPeersPerGpu = 32;
// A PCI bus id as NVML writes it ("00000000:18:00.0").
inline constexpr size_t kMaxPciBusIdLength = 16;
// A GPU model as NVML names it ("NVIDIA H200"; NVML's buffer holds 96).
inline constexpr size_t kMaxGpuModelLength = 64;

}  // namespace fabricpulse::core
