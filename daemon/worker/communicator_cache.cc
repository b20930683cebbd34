#include "daemon/worker/communicator_cache.h"

#include <algorithm>

namespace fabricpulse::worker {

std::shared_ptr<backend::Communicator> CommunicatorCache::Find(
    const std::string& comm_id) {
  absl::MutexLock lock(&mu_);
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    if (it->comm_id != comm_id) continue;
    Entry entry = std::move(*it);
    entries_.erase(it);
    if (entry.comm->broken()) return nullptr;
    auto comm = entry.comm;
    entries_.push_front(std::move(entry));
    return comm;
  }
  return nullptr;
}

void CommunicatorCache::Put(const std::string& comm_id,
                            std::shared_ptr<backend::Communicator> comm,
                            absl::Time now) {
  absl::MutexLock lock(&mu_);
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    if (it->comm_id == comm_id) {
      entries_.erase(it);
      break;
    }
  }
  entries_.push_front(Entry{comm_id, std::move(comm), now});
  while (entries_.size() > capacity_) entries_.pop_back();
}

void CommunicatorCache::Touch(const std::string& comm_id, absl::Time now) {
  absl::MutexLock lock(&mu_);
  for (Entry& entry : entries_) {
    if (entry.comm_id == comm_id) entry.last_used = now;
  }
}

void CommunicatorCache::Erase(const std::string& comm_id) {
  absl::MutexLock lock(&mu_);
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    if (it->comm_id == comm_id) {
      entries_.erase(it);
      return;
    }
  }
}

void CommunicatorCache::Clear() {
  absl::MutexLock lock(&mu_);
  entries_.clear();
}

std::vector<std::shared_ptr<backend::Communicator>>
CommunicatorCache::TakeUsedBefore(absl::Time cutoff) {
  std::vector<std::shared_ptr<backend::Communicator>> taken;
  absl::MutexLock lock(&mu_);
  for (auto it = entries_.begin(); it != entries_.end();) {
    if (it->last_used < cutoff) {
      taken.push_back(std::move(it->comm));
      it = entries_.erase(it);
    } else {
      ++it;
    }
  }
  return taken;
}

std::optional<absl::Time> CommunicatorCache::OldestUse() const {
  absl::MutexLock lock(&mu_);
  if (entries_.empty()) return std::nullopt;
  absl::Time oldest = absl::InfiniteFuture();
  for (const Entry& entry : entries_) {
    oldest = std::min(oldest, entry.last_used);
  }
  return oldest;
}

size_t CommunicatorCache::size() const {
  absl::MutexLock lock(&mu_);
  return entries_.size();
}

}  // namespace fabricpulse::worker
