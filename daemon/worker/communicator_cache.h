// Communicators kept alive between sweeps, named by the coordinator's
// comm id (members, their incarnations, membership epoch, generation).
#pragma once

#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
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
  // Caches `comm`, last used `now`.
  void Put(const std::string& comm_id,
           std::shared_ptr<backend::Communicator> comm,
           absl::Time now = absl::Now());
  // Marks `comm_id` used at `now` (a sweep on it ended).
  void Touch(const std::string& comm_id, absl::Time now = absl::Now());
  void Erase(const std::string& comm_id);
  void Clear();
  // Removes and returns the communicators last used before `cutoff`.
  std::vector<std::shared_ptr<backend::Communicator>> TakeUsedBefore(
      absl::Time cutoff);
  // When the least recently used entry was last used; none when empty.
  std::optional<absl::Time> OldestUse() const;
  size_t size() const;

 private:
  struct Entry {
    std::string comm_id;
    std::shared_ptr<backend::Communicator> comm;
    absl::Time last_used;
  };
  const size_t capacity_;
  mutable absl::Mutex mu_;
  std::deque<Entry> entries_ ABSL_GUARDED_BY(mu_);  // front = most recent
};

}  // namespace fabricpulse::worker
