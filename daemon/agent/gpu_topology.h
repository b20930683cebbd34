// What the agent reports about its GPUs beside their use: each GPU's model,
// PCI bus id, NVLink peers and active NVLink count (WorkerInfo.gpu_model,
// pci_bus_id, nvlink_peers, nvlink_active_links), read from NVML at agent
// start and again every --topology-refresh (machine_topology.h): a link
// that goes down, or comes up down after a reset, shows without a restart.
//
// NVLink peers: for every active link of a GPU (nvml::Nvml::
// NvLinkRemoteBusIds) whose far end's bus id is another GPU of this machine
// (any NVML GPU, not only the agent's), that GPU is a peer. A far end that
// is no local GPU is an NVSwitch (HGX/DGX boards): every GPU with an active
// link to a switch reaches every other such GPU through the switch fabric,
// so those GPUs are all peers of one another. (A far end on another
// machine, as in multi-node NVLink racks, is counted the same way; its
// GPUs are not local and are not listed.)
//
// Thread-safety: pure functions over an Nvml (itself thread-safe).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "daemon/nvml/nvml_library.h"
#include "fabricpulse/v1/types.pb.h"

namespace fabricpulse::agent {

struct GpuFacts {
  std::string model;              // "" when NVML could not say
  std::string pci_bus_id;         // ""
  std::vector<int> nvlink_peers;  // NVML indexes, ascending
  // Active NVLinks (0 without NVLink); absent when NVML could not say.
  std::optional<int> active_links;

  bool operator==(const GpuFacts&) const = default;
};

// The peers of each GPU from each GPU's bus id and its active links' far
// ends (both indexed by NVML index; a GPU with an empty bus id is matched by
// nobody). Bus ids compare case-insensitively. Peers are ascending, never
// the GPU itself, at most core::kMaxNvlinkPeersPerGpu.
std::vector<std::vector<int>> NvlinkPeers(
    const std::vector<std::string>& bus_ids,
    const std::vector<std::vector<std::string>>& link_remotes);

// The facts of GPUs `gpus` (NVML indexes; negative entries, CPU ranks, are
// skipped), from `nvml`: every NVML GPU's bus id and links are read to find
// the peers. What NVML cannot answer is left empty (logged here unless
// `quiet`: the agent's re-reads are quiet, its first read is not).
std::map<int, GpuFacts> ReadGpuFacts(nvml::Nvml& nvml,
                                     const std::vector<int>& gpus,
                                     bool quiet = false);

// Sets gpu_model, pci_bus_id, nvlink_peers and nvlink_active_links of each of
// `info`'s workers whose GPU is in `facts` (CPU ranks, gpu < 0, keep them
// empty).
void AnnotateGpuFacts(const std::map<int, GpuFacts>& facts,
                      v1::AgentInfo& info);
// The same on a worker list (a heartbeat's).
void AnnotateGpuFacts(
    const std::map<int, GpuFacts>& facts,
    google::protobuf::RepeatedPtrField<v1::WorkerInfo>& workers);

}  // namespace fabricpulse::agent
