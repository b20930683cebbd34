// The agent's busy-GPU check: every couple of seconds (every 100 ms while a
// sweep that yields runs), asks NVML which compute processes use this
// node's GPUs and counts those that are not our own workers
// (core::OtherComputeProcesses). The result sets
// fabricpulse_agent_gpu_busy{node,gpu} and, from the same NVML listing,
// fabricpulse_agent_worker_gpu_memory_bytes{node,worker,gpu}; it travels to the
// coordinator in each worker's WorkerInfo (gpu_busy, gpu_other_processes),
// where sweeps on busy GPUs are refused or held back, and tells a running sweep
// to yield (ForeignProcess).
//
// GPU indices: the agent's --gpus indices are taken as NVML indices
// (nvidia-smi's order, PCI bus order). CUDA numbers the same GPUs alike when
// CUDA_DEVICE_ORDER=PCI_BUS_ID or the GPUs are all of one model, and when
// CUDA_VISIBLE_DEVICES does not renumber them (it hides GPUs from CUDA, not
// from NVML).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "daemon/agent/agent_metrics.h"
#include "daemon/nvml/nvml_library.h"
#include "fabricpulse/v1/types.pb.h"

namespace fabricpulse::agent {

struct GpuBusyProbeOptions {
  // This agent's workers now (WorkerSupervisor::Snapshot): their GPUs and
  // pids. Workers with gpu < 0 (CPU ranks) are ignored.
  std::function<std::vector<v1::WorkerInfo>()> workers;
  // Sets fabricpulse_agent_gpu_busy; nullable (no metrics). Must outlive
  // the probe.
  AgentMetrics* metrics = nullptr;
  // Whether a pid names a live process in the agent's pid namespace.
  // Default: kill(pid, 0) succeeds or fails with EPERM.
  std::function<bool(int64_t)> pid_exists;
  // Called (from the probe's thread, no lock held) when a GPU turns busy or
  // free, e.g. to send a heartbeat at once.
  std::function<void()> on_change;
  absl::Duration interval = absl::Seconds(2);
  // The interval while a sweep watches the GPUs (SweepWatch): it bounds how
  // long a foreign process goes unseen by a running sweep. An NVML process
  // list is one cheap driver query per GPU; idle agents keep `interval`.
  absl::Duration sweep_interval = absl::Milliseconds(100);
};

// Thread-safe. Runs one thread between Start() and Stop().
class GpuBusyProbe {
 public:
  // `nvml` answers ComputeProcesses (a fake in unit tests); shared with the
  // agent's free-memory reader.
  GpuBusyProbe(std::shared_ptr<nvml::Nvml> nvml, GpuBusyProbeOptions options);
  ~GpuBusyProbe();  // Stop()

  GpuBusyProbe(const GpuBusyProbe&) = delete;
  GpuBusyProbe& operator=(const GpuBusyProbe&) = delete;

  // Polls at once, then every `interval`.
  void Start();
  void Stop();  // idempotent; joins the thread (bounded by one poll)

  // One poll: lists each GPU's compute processes, decides, sets the gauges
  // (busy, and each GPU worker's memory: absent when NVML's pids are not
  // this namespace's or it reports no figure),
  // keeps the result for Annotate(). A GPU that NVML cannot answer for
  // counts as free (logged when it starts and stops failing). Start()'s
  // thread calls it; unit tests call it directly.
  void PollOnce();

  // Sets gpu_busy and gpu_other_processes of each of `info`'s workers from
  // the last poll (workers of GPUs never polled are left free).
  void Annotate(v1::AgentInfo& info) const;

  // The first of `workers`' GPUs (gpu >= 0) that the last poll found in use
  // by another process than our workers, with that worker's local index;
  // nullopt when there is none.
  std::optional<v1::PreemptedEvent> ForeignProcess(
      const std::vector<v1::WorkerInfo>& workers) const;

  // While one exists, the probe polls every sweep_interval; the first one
  // makes it poll at once. `probe` may be null (nothing happens).
  class SweepWatch {
   public:
    explicit SweepWatch(GpuBusyProbe* probe);
    ~SweepWatch();
    SweepWatch(const SweepWatch&) = delete;
    SweepWatch& operator=(const SweepWatch&) = delete;

   private:
    GpuBusyProbe* const probe_;
  };

 private:
  struct GpuState {
    int other_processes = 0;
    std::string error;  // the last NVML error, "" when it answered
  };

  void Run();

  const std::shared_ptr<nvml::Nvml> nvml_;
  const GpuBusyProbeOptions options_;
  // Held across a poll so that two polls never interleave their results.
  absl::Mutex poll_mu_;
  mutable absl::Mutex mu_;
  std::map<int, GpuState> gpus_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  int watches_ ABSL_GUARDED_BY(mu_) = 0;  // SweepWatch objects alive
  bool poll_now_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;
};

}  // namespace fabricpulse::agent

namespace fabricpulse::agent {

// The probe for an agent whose workers run on `gpus` (one entry per worker,
// -1 for a CPU rank), not started, over `nvml` (nvml::OpenNvml's result;
// released when unused); null when there is nothing to
// probe (no GPU rank) or when NVML could not be loaded (no driver: the check
// is off, which is logged once as a fact, not an error).
std::unique_ptr<GpuBusyProbe> MakeGpuBusyProbe(
    const std::vector<int>& gpus,
    absl::StatusOr<std::shared_ptr<nvml::Nvml>> nvml,
    GpuBusyProbeOptions options);

}  // namespace fabricpulse::agent
