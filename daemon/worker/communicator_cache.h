// Communicators kept alive between sweeps, named by the coordinator's
// comm id (members, their incarnations, membership epoch, generation).
#pragma once

#include <deque>
#include <memory>
#include <string>
#include <utility>

#include "absl/synchronization/mutex.h"
#include "daemon/backend/collective_backend.h"

namespace fabricpulse::worker {

// Thread-safe. Holds at most `capacity` communicators, least recently used
// evicted first. Entries are shared: a sweep keeps its communicator alive
// even when Clear() drops the cache's reference.
class CommunicatorCache {
 public:
  explicit CommunicatorCache(size_t capacity) : capacity_(capacity) {}

  // The cached communicator for `comm_id` unless it is broken (then it is
  // dropped); nullptr when none.
  std::shared_ptr<backend::Communicator> Find(const std::string& comm_id);
  void Put(const std::string& comm_id,
           std::shared_ptr<backend::Communicator> comm);
  void Erase(const std::string& comm_id);
  void Clear();
  size_t size() const;

 private:
  const size_t capacity_;
  mutable absl::Mutex mu_;
  std::deque<std::pair<std::string, std::shared_ptr<backend::Communicator>>>
      entries_ ABSL_GUARDED_BY(mu_);  // front = most recent
};

}  // namespace fabricpulse::worker
