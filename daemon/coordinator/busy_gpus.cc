#include "daemon/coordinator/busy_gpus.h"

#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace fabricpulse::coordinator {

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
                                 g.other_processes, " other process",
                                 g.other_processes == 1 ? "" : "es", ")"));
  }
  return absl::StrJoin(parts, ", ");
}

}  // namespace fabricpulse::coordinator
