// Whether a GPU is busy: other compute processes than this agent's own
// workers use it. Pure decision logic; the agent's NVML probe
// (daemon/agent/gpu_busy_probe.h) feeds it what NVML and the supervisor
// report.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

namespace fabricpulse::core {

// One GPU at one poll.
struct GpuProcesses {
  int gpu = -1;  // NVML index
  // Pids NVML lists as compute processes on the GPU. NVML reports them in
  // the host's pid namespace: in a container without hostPID they are not
  // the pids the agent sees.
  std::vector<int64_t> compute_pids;
  // Pids of this agent's live workers on the GPU (the agent's namespace).
  // Our workers keep CUDA contexts between sweeps, so NVML lists them too
  // (from their first sweep on).
  std::vector<int64_t> worker_pids;
};

// Whether NVML's pids are pids of the agent's own namespace. True when one
// of them is one of our workers, or when each of them names a process that
// exists here (`pid_exists`); false when some does not exist here (the
// agent runs in a container without hostPID: NVML reports host pids). True
// when NVML lists no process at all (nothing to match).
bool NvmlPidsAreLocal(const std::vector<GpuProcesses>& gpus,
                      const std::function<bool(int64_t)>& pid_exists);

// How many compute processes on `gpu` are not our workers. Each distinct
// NVML pid counts once.
//  - Some NVML pid is one of our workers, or `pids_local`: by pid, exactly.
//  - Otherwise (host pids that never match ours): the count of NVML's
//    processes less our live workers on the GPU, at least 0. A worker that
//    has no CUDA context yet (before its first sweep) is still subtracted,
//    so until then one other process per such worker can go unseen.
int OtherComputeProcesses(const GpuProcesses& gpu, bool pids_local);

}  // namespace fabricpulse::core
