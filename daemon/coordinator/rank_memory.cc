#include "daemon/coordinator/rank_memory.h"

#include <map>
#include <utility>

#include "absl/strings/str_cat.h"

namespace fabricpulse::coordinator {
namespace {

// A pool of memory: a machine, and a GPU of it (-1: its host memory).
using PoolKey = std::pair<std::string, int>;

PoolKey PoolOf(const v1::AgentInfo& agent, const std::string& boot_id,
               const v1::WorkerInfo& worker) {
  const std::string machine = boot_id.empty()
                                  ? absl::StrCat("node:", agent.node_name())
                                  : absl::StrCat("boot:", boot_id);
  return {machine, worker.gpu() < 0 ? -1 : worker.gpu()};
}

}  // namespace

absl::StatusOr<std::vector<core::RankMemory>> RankMemories(
    const std::vector<v1::AgentInfo>& agents,
    const std::vector<std::string>& boot_ids) {
  auto boot_of = [&boot_ids](size_t i) -> const std::string& {
    static const std::string kNone;
    return i < boot_ids.size() ? boot_ids[i] : kNone;
  };
  std::map<PoolKey, int> sharers;
  for (size_t i = 0; i < agents.size(); ++i) {
    for (const v1::WorkerInfo& w : agents[i].workers()) {
      sharers[PoolOf(agents[i], boot_of(i), w)]++;
    }
  }
  std::vector<core::RankMemory> ranks;
  for (size_t i = 0; i < agents.size(); ++i) {
    const v1::AgentInfo& agent = agents[i];
    for (const v1::WorkerInfo& w : agent.workers()) {
      const int rank = static_cast<int>(ranks.size());
      const std::string device =
          w.gpu() < 0 ? "host memory" : absl::StrCat("GPU ", w.gpu());
      if (!w.has_free_memory_bytes()) {
        return absl::FailedPreconditionError(absl::StrCat(
            "max_bytes: auto needs every rank's free memory; rank ", rank,
            " (node ", agent.node_name(), ", ", device,
            ") has no figure (its agent could not read it: see its log); "
            "give --max-bytes a size instead"));
      }
      const int share = sharers[PoolOf(agent, boot_of(i), w)];
      core::RankMemory memory;
      memory.rank = rank;
      memory.free_bytes = w.free_memory_bytes() / share;
      memory.where = absl::StrCat(
          "rank ", rank, " (node ", agent.node_name(), ", ", device,
          share > 1 ? absl::StrCat(" shared by ", share, " ranks") : "", ")");
      ranks.push_back(std::move(memory));
    }
  }
  return ranks;
}

}  // namespace fabricpulse::coordinator
