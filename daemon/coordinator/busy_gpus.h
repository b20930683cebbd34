// Busy GPUs among a sweep's members, as the agents report them in their
// heartbeats and Describe answers (WorkerInfo.gpu_busy, set by each agent's
// NVML probe), and the two statuses a busy GPU gives a sweep that does not
// allow busy GPUs: refused before it starts, or preempted while it runs.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "fabricpulse/v1/types.pb.h"

namespace fabricpulse::coordinator {

struct BusyGpu {
  std::string node;
  int gpu = -1;
  int other_processes = 0;
};

// Each (node, GPU) of `agents`' workers that reports other compute
// processes, once, in the agents' and workers' order.
std::vector<BusyGpu> FindBusyGpus(const std::vector<v1::AgentInfo>& agents);

// One line for logs: "node gpu-a GPU 0 (2 other processes), node gpu-b
// GPU 3 (1 other process)"; at most `max_listed` GPUs, then "and N more".
std::string DescribeBusyGpus(const std::vector<BusyGpu>& gpus,
                             int max_listed = 4);

// A sweep refused because `gpus` (not empty) are busy: RESOURCE_EXHAUSTED
// "GPUs busy: node a GPU 0 (1 other process): ...", marked for IsGpuBusy.
absl::Status GpusBusyError(const std::vector<BusyGpu>& gpus);
// A running sweep that yielded to a foreign compute process on `gpu`:
// RESOURCE_EXHAUSTED "node a GPU 0: a compute process ... appeared ...",
// marked for IsGpuBusy and IsPreempted.
absl::Status PreemptedError(const BusyGpu& gpu);
// Whether `status` is one of the two above (the mark travels in-process
// only, as an absl::Status payload; gRPC does not carry it).
bool IsGpuBusy(const absl::Status& status);
// Whether `status` is PreemptedError's.
bool IsPreempted(const absl::Status& status);

}  // namespace fabricpulse::coordinator
