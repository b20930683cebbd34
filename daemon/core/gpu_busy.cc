#include "daemon/core/gpu_busy.h"

#include <algorithm>
#include <set>

namespace fabricpulse::core {

bool NvmlPidsAreLocal(const std::vector<GpuProcesses>& gpus,
                      const std::function<bool(int64_t)>& pid_exists) {
  bool all_exist = true;
  for (const GpuProcesses& g : gpus) {
    const std::set<int64_t> ours(g.worker_pids.begin(), g.worker_pids.end());
    for (int64_t pid : g.compute_pids) {
      if (ours.count(pid) > 0) return true;
      if (all_exist && !pid_exists(pid)) all_exist = false;
    }
  }
  return all_exist;
}

int OtherComputeProcesses(const GpuProcesses& gpu, bool pids_local) {
  const std::set<int64_t> nvml(gpu.compute_pids.begin(),
                               gpu.compute_pids.end());
  const std::set<int64_t> ours(gpu.worker_pids.begin(), gpu.worker_pids.end());
  int matched = 0;
  for (int64_t pid : nvml) matched += ours.count(pid) > 0 ? 1 : 0;
  const int total = static_cast<int>(nvml.size());
  if (matched > 0 || pids_local) return total - matched;
  return std::max(0, total - static_cast<int>(ours.size()));
}

}  // namespace fabricpulse::core
