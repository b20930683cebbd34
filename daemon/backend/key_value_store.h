// The rendezvous key-value store a backend uses to find its peers (served
// by the coordinator; see CoordinatorService.KvSet/KvGet).
#pragma once

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace fabricpulse::backend {

class KeyValueStore {
 public:
  virtual ~KeyValueStore() = default;
  // Errors: UNAVAILABLE store unreachable.
  virtual absl::Status Set(const std::string& key,
                           const std::string& value) = 0;
  // Waits up to `timeout` for the key. Errors: DEADLINE_EXCEEDED the key
  // did not appear; UNAVAILABLE store unreachable.
  virtual absl::StatusOr<std::string> Get(const std::string& key,
                                          absl::Duration timeout) = 0;
};

}  // namespace fabricpulse::backend
