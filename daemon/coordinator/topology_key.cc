#include "daemon/coordinator/topology_key.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace fabricpulse::coordinator {
namespace {

bool Peers(const v1::WorkerInfo& a, const v1::WorkerInfo& b) {
  const auto lists = [](const v1::WorkerInfo& w, int gpu) {
    return std::find(w.nvlink_peers().begin(), w.nvlink_peers().end(), gpu) !=
           w.nvlink_peers().end();
  };
  return lists(a, b.gpu()) || lists(b, a.gpu());
}

}  // namespace

std::string TopologyKey(const std::string& backend,
                        const std::vector<v1::AgentInfo>& agents) {
  std::vector<std::string> parts;
  std::set<std::string> models;
  bool facts = false;
  int linked = 0;
  int pairs = 0;
  for (const v1::AgentInfo& a : agents) {
    parts.push_back(absl::StrCat(a.node_name(), "x", a.workers_size()));
    std::vector<const v1::WorkerInfo*> gpus;
    for (const v1::WorkerInfo& w : a.workers()) {
      if (w.gpu() < 0) continue;
      facts = facts || !w.gpu_model().empty() || w.nvlink_peers_size() > 0;
      models.insert(w.gpu_model().empty() ? "unknown" : w.gpu_model());
      gpus.push_back(&w);
    }
    for (size_t i = 0; i < gpus.size(); ++i) {
      for (size_t j = i + 1; j < gpus.size(); ++j) {
        if (gpus[i]->gpu() == gpus[j]->gpu()) continue;
        ++pairs;
        linked += Peers(*gpus[i], *gpus[j]) ? 1 : 0;
      }
    }
  }
  std::string key = absl::StrCat(backend, ":", absl::StrJoin(parts, ","));
  if (!facts) return key;
  const char* nvlink = linked == 0       ? "none"
                       : linked == pairs ? "full"
                                         : "partial";
  absl::StrAppend(&key, ";gpu=", absl::StrJoin(models, "+"),
                  ";nvlink=", nvlink);
  return key;
}

absl::string_view TopologyShape(absl::string_view key) {
  return key.substr(0, key.find(';'));
}

absl::string_view TopologyHardware(absl::string_view key) {
  const size_t at = key.find(';');
  return at == absl::string_view::npos ? absl::string_view()
                                       : key.substr(at + 1);
}

}  // namespace fabricpulse::coordinator
