// Names communicators: the same members (with the same worker
// incarnations), membership epoch and generation give the same id, so
// workers reuse their cached communicator; anything else gives a new id.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "fabricpulse/v1/types.pb.h"

namespace fabricpulse::coordinator {

// Thread-safe.
class CommNaming {
 public:
  // `agents` sorted by node name, with their workers' incarnations.
  std::string CommId(const std::vector<v1::AgentInfo>& agents, uint64_t epoch);
  // Retires the communicator of these members: the next CommId differs.
  void Retire(const std::vector<v1::AgentInfo>& agents);

 private:
  static std::string MemberKey(const std::vector<v1::AgentInfo>& agents);
  absl::Mutex mu_;
  std::map<std::string, uint64_t> generation_ ABSL_GUARDED_BY(mu_);
};

}  // namespace fabricpulse::coordinator
