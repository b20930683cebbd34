// The machine facts an agent adds to its description: its GPUs' model, bus
// id and NVLink peers (read once, gpu_topology.h) and its network
// interfaces (read anew each time, nic_reader.h, which also sets the NIC
// series of AgentMetrics). Heartbeats carry only the workers, so they take
// the GPU facts alone; the NICs are read for a full description
// (registration, Describe) and at each scrape of the agent's metrics.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "daemon/agent/agent_metrics.h"
#include "daemon/agent/gpu_topology.h"
#include "daemon/agent/nic_reader.h"
#include "fabricpulse/v1/types.pb.h"

namespace fabricpulse::agent {

// Thread-safe.
class MachineTopology {
 public:
  // `sys_class_net`: NicReader's root. `metrics` is nullable (no NIC
  // series); it outlives this object.
  MachineTopology(std::map<int, GpuFacts> gpus, std::string sys_class_net,
                  AgentMetrics* metrics)
      : gpus_(std::move(gpus)),
        nics_(std::move(sys_class_net)),
        metrics_(metrics) {}

  // Sets each GPU worker's facts, replaces info.nics with the interfaces
  // now and exports their state.
  void Annotate(v1::AgentInfo& info) const {
    AnnotateGpus(info);
    const std::vector<v1::NicInfo> nics = nics_.Read();
    info.clear_nics();
    for (const v1::NicInfo& nic : nics) *info.add_nics() = nic;
    if (metrics_ != nullptr) metrics_->Nics(nics);
  }
  // Sets each GPU worker's facts only (what a heartbeat carries).
  void AnnotateGpus(v1::AgentInfo& info) const {
    AnnotateGpuFacts(gpus_, info);
  }
  // Reads the interfaces now and exports their state (before a scrape).
  void ExportNics() const {
    if (metrics_ != nullptr) metrics_->Nics(nics_.Read());
  }

 private:
  const std::map<int, GpuFacts> gpus_;
  const NicReader nics_;
  AgentMetrics* const metrics_;
};

}  // namespace fabricpulse::agent
