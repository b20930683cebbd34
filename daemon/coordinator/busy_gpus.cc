#include "daemon/coordinator/busy_gpus.h"

#include <set>
#include <utility>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace fabricpulse::coordinator {
namespace {

// The payload that marks a busy-GPU status, and its two values.
constexpr char kBusyPayload[] = "type.fabricpulse.dev/gpu-busy";
constexpr char kRefused[] = "refused";
constexpr char kPreempted[] = "preempted";

absl::Status Marked(std::string message, const char* kind) {
  absl::Status status = absl::ResourceExhaustedError(std::move(message));
  status.SetPayload(kBusyPayload, absl::Cord(kind));
  return status;
}

std::string Processes(int n) {
  return absl::StrCat(n, " other process", n == 1 ? "" : "es");
}

}  // namespace

std::vector<BusyGpu> FindBusyGpus(const std::vector<v1::AgentInfo>& agents) {
  std::vector<BusyGpu> out;
  std::set<std::pair<std::string, int>> seen;
  for (const v1::AgentInfo& agent : agents) {
    for (const v1::WorkerInfo& w : agent.workers()) {
      if (!w.gpu_busy() || w.gpu() < 0) continue;
      if (!seen.insert({agent.node_name(), w.gpu()}).second) continue;
      out.push_back({agent.node_name(), w.gpu(), w.gpu_other_processes()});
    }
  }
  return out;
}

std::string DescribeBusyGpus(const std::vector<BusyGpu>& gpus, int max_listed) {
  std::vector<std::string> parts;
  for (const BusyGpu& g : gpus) {
    if (static_cast<int>(parts.size()) == max_listed) {
      parts.push_back(absl::StrCat("and ", gpus.size() - max_listed, " more"));
      break;
    }
    parts.push_back(absl::StrCat("node ", g.node, " GPU ", g.gpu, " (",
                                 Processes(g.other_processes), ")"));
  }
  return absl::StrJoin(parts, ", ");
}

absl::Status GpusBusyError(const std::vector<BusyGpu>& gpus) {
  return Marked(
      absl::StrCat("GPUs busy: ", DescribeBusyGpus(gpus),
                   " (compute processes that are not FabricPulse workers, "
                   "as NVML lists them); the sweep was not started; "
                   "--allow-busy runs it anyway"),
      kRefused);
}

absl::Status PreemptedError(const BusyGpu& gpu) {
  return Marked(
      absl::StrCat("node ", gpu.node, " GPU ", gpu.gpu,
                   ": a compute process that is not a FabricPulse worker "
                   "appeared (",
                   Processes(gpu.other_processes),
                   ", NVML); the sweep yielded to it (not a fault; "
                   "--allow-busy does not yield)"),
      kPreempted);
}

bool IsGpuBusy(const absl::Status& status) {
  return status.GetPayload(kBusyPayload).has_value();
}

bool IsPreempted(const absl::Status& status) {
  const auto kind = status.GetPayload(kBusyPayload);
  return kind.has_value() && *kind == kPreempted;
}

}  // namespace fabricpulse::coordinator
