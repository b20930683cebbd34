// The key-value store that backs the Gloo rendezvous (and later the NCCL
// unique-id hand-out). Keys live until the coordinator restarts; every
// communicator uses a fresh prefix, so keys are never overwritten in use.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace fabricpulse::coordinator {

// Thread-safe.
class RendezvousStore {
 public:
  // Errors: INVALID_ARGUMENT empty key.
  absl::Status Set(const std::string& key, std::string value);
  // Waits up to `wait` for the key. Errors: DEADLINE_EXCEEDED.
  absl::StatusOr<std::string> Get(const std::string& key, absl::Duration wait);
  // Removes every key under `prefix`.
  void ErasePrefix(const std::string& prefix);
  // Keys written since start.
  uint64_t sets() const;

 private:
  mutable absl::Mutex mu_;
  std::map<std::string, std::string> values_ ABSL_GUARDED_BY(mu_);
  uint64_t sets_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace fabricpulse::coordinator
