// Busy GPUs among a sweep's members, as the agents report them in their
// heartbeats (WorkerInfo.gpu_busy, set by each agent's NVML probe).
#pragma once

#include <string>
#include <vector>

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

}  // namespace fabricpulse::coordinator
