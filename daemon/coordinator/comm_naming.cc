#include "daemon/coordinator/comm_naming.h"

#include "absl/strings/str_cat.h"

namespace fabricpulse::coordinator {
namespace {

uint64_t Fnv1a(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

}  // namespace

std::string CommNaming::MemberKey(const std::vector<v1::AgentInfo>& agents) {
  std::string key;
  for (const v1::AgentInfo& agent : agents) {
    absl::StrAppend(&key, agent.node_name(), "@", agent.address(), "[");
    for (const v1::WorkerInfo& w : agent.workers()) {
      absl::StrAppend(&key, w.incarnation(), ",");
    }
    absl::StrAppend(&key, "];");
  }
  return key;
}

std::string CommNaming::CommId(const std::vector<v1::AgentInfo>& agents,
                               uint64_t epoch) {
  const std::string members = MemberKey(agents);
  uint64_t generation;
  {
    absl::MutexLock lock(&mu_);
    // find, not []: only a retired member set needs an entry.
    auto it = generation_.find(members);
    generation = it == generation_.end() ? 0 : it->second;
  }
  return absl::StrCat(
      "c", absl::Hex(Fnv1a(absl::StrCat(members, "#", epoch, "#", generation)),
                     absl::kZeroPad16));
}

void CommNaming::Retire(const std::vector<v1::AgentInfo>& agents) {
  absl::MutexLock lock(&mu_);
  generation_[MemberKey(agents)]++;
}

}  // namespace fabricpulse::coordinator
