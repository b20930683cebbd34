#include "daemon/worker/communicator_cache.h"

namespace fabricpulse::worker {

std::shared_ptr<backend::Communicator> CommunicatorCache::Find(
    const std::string& comm_id) {
  absl::MutexLock lock(&mu_);
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    if (it->first != comm_id) continue;
    auto comm = it->second;
    entries_.erase(it);
    if (comm->broken()) return nullptr;
    entries_.emplace_front(comm_id, comm);
    return comm;
  }
  return nullptr;
}

void CommunicatorCache::Put(const std::string& comm_id,
                            std::shared_ptr<backend::Communicator> comm) {
  absl::MutexLock lock(&mu_);
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    if (it->first == comm_id) {
      entries_.erase(it);
      break;
    }
  }
  entries_.emplace_front(comm_id, std::move(comm));
  while (entries_.size() > capacity_) entries_.pop_back();
}

void CommunicatorCache::Erase(const std::string& comm_id) {
  absl::MutexLock lock(&mu_);
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    if (it->first == comm_id) {
      entries_.erase(it);
      return;
    }
  }
}

void CommunicatorCache::Clear() {
  absl::MutexLock lock(&mu_);
  entries_.clear();
}

size_t CommunicatorCache::size() const {
  absl::MutexLock lock(&mu_);
  return entries_.size();
}

}  // namespace fabricpulse::worker
