// The machine facts an agent adds to its description and its heartbeats:
// its GPUs' model, bus id, NVLink peers and active NVLinks
// (gpu_topology.h) and its network interfaces (nic_reader.h, which also
// sets the NIC series of AgentMetrics).
//
// Re-read, confirmed: the facts are read at start, at every full
// description (registration, Describe) and, from heartbeats, once every
// `refresh` (--topology-refresh, default 60 s). A change becomes what the
// agent reports only when two reads in a row agree (a link that flaps for
// one read is never reported); the first read at start is taken as is.
// The NIC series of the agent's /metrics stay raw: read at every scrape.
//
// Cost: one NVML pass over the machine's GPUs (a few calls per NVLink) and
// a few sysfs reads per interface, per refresh.
//
// Thread-safe.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "daemon/agent/agent_metrics.h"
#include "daemon/agent/gpu_topology.h"
#include "daemon/agent/nic_reader.h"
#include "daemon/core/clock.h"
#include "fabricpulse/v1/coordinator.pb.h"
#include "fabricpulse/v1/types.pb.h"

namespace fabricpulse::agent {

inline constexpr absl::Duration kDefaultTopologyRefresh = absl::Seconds(60);
inline constexpr absl::Duration kMinTopologyRefresh = absl::Seconds(1);
inline constexpr absl::Duration kMaxTopologyRefresh = absl::Hours(1);

class MachineTopology {
 public:
  struct Options {
    // Reads the GPU facts now (quiet: the re-reads log nothing); null: no
    // GPU facts (no NVML).
    std::function<std::map<int, GpuFacts>(bool quiet)> read_gpus;
    std::string sys_class_net = "/sys/class/net";  // NicReader's root
    AgentMetrics* metrics = nullptr;  // nullable: no NIC series; outlives
    absl::Duration refresh = kDefaultTopologyRefresh;
    core::Clock* clock = core::RealClock::Get();  // outlives this object
  };
  // Reads the facts once (taken as is).
  explicit MachineTopology(Options options);

  // A full description: reads the facts now (one read toward confirming a
  // change), then sets each GPU worker's facts and info.nics to the
  // confirmed ones, and exports the NICs just read.
  void Annotate(v1::AgentInfo& info);
  // A heartbeat: reads the facts when a refresh is due, then sets each GPU
  // worker's facts and request.nics to the confirmed ones.
  void AnnotateHeartbeat(v1::HeartbeatRequest& request);
  // Reads the interfaces now and exports their state (before a scrape).
  void ExportNics() const;

 private:
  struct Facts {
    std::map<int, GpuFacts> gpus;
    std::vector<v1::NicInfo> nics;
    bool operator==(const Facts& other) const;
  };
  Facts ReadNow(bool quiet) const;
  // Feeds one read to the confirmation.
  void Take(Facts read) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const Options options_;
  const NicReader nics_;
  absl::Mutex mu_;
  Facts confirmed_ ABSL_GUARDED_BY(mu_);
  // The last read, when it differed from the confirmed facts.
  std::optional<Facts> candidate_ ABSL_GUARDED_BY(mu_);
  absl::Time last_read_ ABSL_GUARDED_BY(mu_);
};

}  // namespace fabricpulse::agent
