#include "daemon/agent/gpu_topology.h"

#include <algorithm>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "daemon/core/log.h"
#include "daemon/core/topology_limits.h"

namespace fabricpulse::agent {

std::vector<std::vector<int>> NvlinkPeers(
    const std::vector<std::string>& bus_ids,
    const std::vector<std::vector<std::string>>& link_remotes) {
  const int n = static_cast<int>(bus_ids.size());
  std::map<std::string, int> by_bus;
  for (int i = 0; i < n; ++i) {
    if (!bus_ids[i].empty())
      by_bus.emplace(absl::AsciiStrToLower(bus_ids[i]), i);
  }
  std::vector<std::set<int>> peers(n);
  std::vector<bool> switched(n, false);
  for (int i = 0; i < n && i < static_cast<int>(link_remotes.size()); ++i) {
    for (const std::string& remote : link_remotes[i]) {
      auto it = by_bus.find(absl::AsciiStrToLower(remote));
      if (it == by_bus.end()) {
        switched[i] = true;
      } else if (it->second != i) {
        peers[i].insert(it->second);
        peers[it->second].insert(i);
      }
    }
  }
  for (int i = 0; i < n; ++i) {
    if (!switched[i]) continue;
    for (int j = 0; j < n; ++j) {
      if (j != i && switched[j]) peers[i].insert(j);
    }
  }
  std::vector<std::vector<int>> out(n);
  for (int i = 0; i < n; ++i) {
    for (int p : peers[i]) {
      if (out[i].size() >= core::kMaxNvlinkPeersPerGpu) break;
      out[i].push_back(p);
    }
  }
  return out;
}

std::map<int, GpuFacts> ReadGpuFacts(nvml::Nvml& nvml,
                                     const std::vector<int>& gpus, bool quiet) {
  std::map<int, GpuFacts> facts;
  const std::set<int> wanted(gpus.begin(), gpus.end());
  if (wanted.empty() || *wanted.rbegin() < 0) return facts;
  absl::StatusOr<int> count = nvml.DeviceCount();
  if (!count.ok()) {
    if (!quiet)
      FP_LOG_WARNING(absl::StrCat("GPU models and NVLink peers unknown: ",
                                  count.status().message()));
    return facts;
  }
  // Every GPU of the machine takes part in the peer map; bounded by
  // the GPU indexes the agent accepts.
  const int n = std::min(*count, 1024);
  std::vector<std::string> bus_ids(n);
  std::vector<std::vector<std::string>> remotes(n);
  std::vector<std::optional<int>> active(n);
  for (int i = 0; i < n; ++i) {
    if (auto bus = nvml.PciBusId(i); bus.ok()) bus_ids[i] = *bus;
    if (auto links = nvml.NvLinkRemoteBusIds(i); links.ok()) {
      remotes[i] = *links;
      active[i] = static_cast<int>(links->size());
    } else if (wanted.count(i) > 0 && !quiet) {
      FP_LOG_WARNING(absl::StrCat(
          "GPU ", i, ": NVLink peers unknown: ", links.status().message()));
    }
  }
  const std::vector<std::vector<int>> peers = NvlinkPeers(bus_ids, remotes);
  for (int gpu : wanted) {
    if (gpu < 0 || gpu >= n) continue;
    GpuFacts& f = facts[gpu];
    absl::StatusOr<std::string> model = nvml.DeviceName(gpu);
    if (model.ok()) {
      f.model = model->substr(0, core::kMaxGpuModelLength);
    } else if (!quiet) {
      FP_LOG_WARNING(absl::StrCat(
          "GPU ", gpu, ": model unknown: ", model.status().message()));
    }
    f.pci_bus_id = bus_ids[gpu].substr(0, core::kMaxPciBusIdLength);
    f.nvlink_peers = peers[gpu];
    f.active_links = active[gpu];
  }
  return facts;
}

void AnnotateGpuFacts(const std::map<int, GpuFacts>& facts,
                      v1::AgentInfo& info) {
  AnnotateGpuFacts(facts, *info.mutable_workers());
}

void AnnotateGpuFacts(
    const std::map<int, GpuFacts>& facts,
    google::protobuf::RepeatedPtrField<v1::WorkerInfo>& workers) {
  for (v1::WorkerInfo& w : workers) {
    auto it = facts.find(w.gpu());
    if (it == facts.end()) continue;
    w.set_gpu_model(it->second.model);
    w.set_pci_bus_id(it->second.pci_bus_id);
    w.clear_nvlink_peers();
    for (int peer : it->second.nvlink_peers) w.add_nvlink_peers(peer);
    if (it->second.active_links) {
      w.set_nvlink_active_links(*it->second.active_links);
    } else {
      w.clear_nvlink_active_links();
    }
  }
}

}  // namespace fabricpulse::agent
