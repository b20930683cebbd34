#include "daemon/coordinator/agent_info_rules.h"

#include "absl/strings/str_cat.h"
#include "daemon/core/agent_labels.h"
#include "daemon/core/limits.h"
#include "daemon/core/name_rules.h"
#include "daemon/core/status_macros.h"
#include "daemon/core/topology_limits.h"

namespace fabricpulse::coordinator {
namespace {

constexpr size_t kMaxBackendLength = 16;
// The highest GPU index an agent accepts (--gpus).
constexpr int kMaxGpuIndex = 1023;
constexpr int kMaxNvLinks = 64;  // NVML's 18, with room

absl::Status ValidateBackend(const std::string& backend) {
  FP_RETURN_IF_ERROR(core::CheckLength("backend", backend, kMaxBackendLength));
  for (const char c : backend) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) {
      return absl::InvalidArgumentError(
          absl::StrCat("backend: ", core::QuotePrefix(backend),
                       " is not a backend name; allowed: 1 to ",
                       kMaxBackendLength, " of a-z 0-9 _"));
    }
  }
  return absl::OkStatus();
}

// What a worker says about its GPU (gpu_topology.h on the agent).
absl::Status CheckGpuFacts(const std::string& at, const v1::WorkerInfo& w) {
  FP_RETURN_IF_ERROR(core::ValidateText(
      absl::StrCat(at, ".gpu_model"), w.gpu_model(), core::kMaxGpuModelLength));
  FP_RETURN_IF_ERROR(core::ValidateText(absl::StrCat(at, ".pci_bus_id"),
                                        w.pci_bus_id(),
                                        core::kMaxPciBusIdLength));
  if (static_cast<size_t>(w.nvlink_peers_size()) >
      core::kMaxNvlinkPeersPerGpu) {
    return absl::InvalidArgumentError(
        absl::StrCat(at, ".nvlink_peers: ", w.nvlink_peers_size(),
                     " listed; allowed: up to ", core::kMaxNvlinkPeersPerGpu));
  }
  for (int peer : w.nvlink_peers()) {
    if (peer < 0 || peer > kMaxGpuIndex) {
      return absl::InvalidArgumentError(
          absl::StrCat(at, ".nvlink_peers: ", peer,
                       " is not a GPU index; allowed: 0 to ", kMaxGpuIndex));
    }
  }
  if (w.has_nvlink_active_links() &&
      (w.nvlink_active_links() < 0 || w.nvlink_active_links() > kMaxNvLinks)) {
    return absl::InvalidArgumentError(
        absl::StrCat(at, ".nvlink_active_links: ", w.nvlink_active_links(),
                     " is out of range; allowed: 0 to ", kMaxNvLinks));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckNics(
    const google::protobuf::RepeatedPtrField<v1::NicInfo>& nics) {
  if (static_cast<size_t>(nics.size()) > core::kMaxNicsPerAgent) {
    return absl::InvalidArgumentError(absl::StrCat("nics: ", nics.size(),
                                                   " listed; allowed: up to ",
                                                   core::kMaxNicsPerAgent));
  }
  for (int i = 0; i < nics.size(); ++i) {
    const v1::NicInfo& nic = nics[i];
    const std::string at = absl::StrCat("nics[", i, "]");
    FP_RETURN_IF_ERROR(core::CheckLength(absl::StrCat(at, ".name"), nic.name(),
                                         core::kMaxNicNameLength));
    FP_RETURN_IF_ERROR(core::ValidateText(absl::StrCat(at, ".name"), nic.name(),
                                          core::kMaxNicNameLength));
    if (nic.kind() != "infiniband" && nic.kind() != "ethernet" &&
        nic.kind() != "other") {
      return absl::InvalidArgumentError(
          absl::StrCat(at, ".kind: ", core::QuotePrefix(nic.kind()),
                       "; allowed: infiniband, ethernet, other"));
    }
    if (nic.state() != "up" && nic.state() != "down" &&
        nic.state() != "unknown") {
      return absl::InvalidArgumentError(
          absl::StrCat(at, ".state: ", core::QuotePrefix(nic.state()),
                       "; allowed: up, down, unknown"));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckWorkers(const std::vector<v1::WorkerInfo>& workers,
                          int registered) {
  const int bound = registered < 0 ? core::kMaxWorkersPerAgent : registered;
  if (static_cast<int>(workers.size()) > bound) {
    return absl::InvalidArgumentError(absl::StrCat(
        "workers: ", workers.size(), " listed; allowed: up to ", bound,
        registered < 0 ? " per agent"
                       : " (the workers this agent registered with)"));
  }
  std::vector<bool> seen(bound, false);
  for (size_t i = 0; i < workers.size(); ++i) {
    const v1::WorkerInfo& w = workers[i];
    const std::string at = absl::StrCat("workers[", i, "]");
    if (w.local_index() < 0 || w.local_index() >= bound) {
      return absl::InvalidArgumentError(
          absl::StrCat(at, ".local_index: ", w.local_index(),
                       " is out of range; allowed: 0 to ", bound - 1));
    }
    if (seen[w.local_index()]) {
      return absl::InvalidArgumentError(absl::StrCat(
          at, ".local_index: ", w.local_index(), " is listed twice"));
    }
    seen[w.local_index()] = true;
    FP_RETURN_IF_ERROR(core::ValidateId(absl::StrCat(at, ".incarnation"),
                                        w.incarnation(), /*allow_empty=*/true));
    // -1: a CPU rank's GPU, a worker not started yet.
    if (w.gpu() < -1 || w.pid() < -1 || w.restarts() < 0 ||
        w.gpu_other_processes() < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          at, ": gpu ", w.gpu(), ", pid ", w.pid(), ", restarts ", w.restarts(),
          ", gpu_other_processes ", w.gpu_other_processes(),
          "; allowed: gpu and pid -1 or more, the others 0 or more"));
    }
    FP_RETURN_IF_ERROR(CheckGpuFacts(at, w));
  }
  return absl::OkStatus();
}

absl::Status ValidateAgentInfo(const v1::AgentInfo& info) {
  FP_RETURN_IF_ERROR(core::ValidateNodeName("node_name", info.node_name()));
  FP_RETURN_IF_ERROR(core::ValidateAddress("address", info.address()));
  FP_RETURN_IF_ERROR(ValidateBackend(info.backend()));
  FP_RETURN_IF_ERROR(core::ValidateText(
      "backend_version", info.backend_version(), core::kMaxFreeTextLength));
  FP_RETURN_IF_ERROR(core::ValidateId("instance_id", info.instance_id(),
                                      /*allow_empty=*/true));
  FP_RETURN_IF_ERROR(
      core::ValidateId("boot_id", info.boot_id(), /*allow_empty=*/true));
  FP_RETURN_IF_ERROR(core::ValidateId("running_sweep", info.running_sweep(),
                                      /*allow_empty=*/true));
  FP_RETURN_IF_ERROR(CheckNics(info.nics()));
  FP_RETURN_IF_ERROR(core::ValidateLabels(
      "labels", core::AgentLabels(info.labels().begin(), info.labels().end())));
  if (info.workers_size() == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "workers: none listed; allowed: 1 to ", core::kMaxWorkersPerAgent));
  }
  return CheckWorkers({info.workers().begin(), info.workers().end()},
                      /*registered=*/-1);
}

}  // namespace fabricpulse::coordinator
