// A bound on the calls one identity has in flight at a server at once: a
// holder of one certificate (a viewer, say) cannot take every thread or
// the memory of the server's synchronous pool from the others. Sized by
// the server (common::ServerCallLimits); a call past the bound is answered
// RESOURCE_EXHAUSTED at once and changes nothing.
#pragma once

#include <cstdint>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "grpcpp/server_context.h"

namespace fabricpulse::security {

class CallLimiter;

// Holds one call's place until destroyed (movable, not copyable). A
// default-made slot holds nothing.
class CallSlot {
 public:
  CallSlot() = default;
  CallSlot(CallSlot&& other) noexcept;
  CallSlot& operator=(CallSlot&& other) noexcept;
  CallSlot(const CallSlot&) = delete;
  CallSlot& operator=(const CallSlot&) = delete;
  ~CallSlot();

 private:
  friend class CallLimiter;
  CallSlot(CallLimiter* limiter, std::string key)
      : limiter_(limiter), key_(std::move(key)) {}
  void Release();

  CallLimiter* limiter_ = nullptr;
  std::string key_;
};

// Thread-safe. Outlives every slot it hands out.
class CallLimiter {
 public:
  struct Limits {
    // Calls one identity may have in flight (1 to 1,024).
    int per_identity = 8;
    // Calls of callers without an identity (a plaintext server, where
    // nobody is known, as --insecure documents), all of them together.
    int anonymous = 64;
  };
  explicit CallLimiter(Limits limits);

  // A slot for the caller of `context`, keyed on the identity its
  // certificate names, or on kAnonymous.
  // Errors: RESOURCE_EXHAUSTED naming the identity and the bound.
  absl::StatusOr<CallSlot> Acquire(const grpc::ServerContextBase& context);
  // The same for a known key (tests, and callers that already hold the
  // identity).
  absl::StatusOr<CallSlot> AcquireFor(const std::string& key);

  static constexpr char kAnonymous[] = "callers without an identity";

  int per_identity() const { return limits_.per_identity; }
  // Calls in flight for `key` (0 when it has none).
  int InFlight(const std::string& key) const;
  // Identities with calls in flight: at most the server's concurrent calls,
  // since an identity leaves the table with its last call.
  size_t identities() const;
  // Calls refused since start.
  uint64_t refused() const;

 private:
  friend class CallSlot;
  void Release(const std::string& key);

  const Limits limits_;
  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, int> in_flight_ ABSL_GUARDED_BY(mu_);
  uint64_t refused_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace fabricpulse::security
