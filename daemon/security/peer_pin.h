// The one identity of a role that a server obeys, learnt at run time: an
// agent obeys only the coordinator it registered with (the exact identity
// its server certificate named), not any coordinator/* of the same CA.
#pragma once

#include <optional>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "daemon/security/identity.h"

namespace fabricpulse::security {

// Thread-safe.
class PeerPin {
 public:
  explicit PeerPin(Role role) : role_(role) {}

  // Pins `id` (replacing an earlier one: a coordinator re-registered with
  // may present another name). Ignored unless `id` has the pinned role.
  void Set(const Identity& id);
  std::optional<Identity> Get() const;

  // OK unless `caller` has the pinned role and is not the pinned identity.
  // Errors: PERMISSION_DENIED naming the caller and the pinned identity (or
  // saying that none is pinned yet).
  absl::Status Check(const Identity& caller) const;

 private:
  const Role role_;
  mutable absl::Mutex mu_;
  std::optional<Identity> pinned_ ABSL_GUARDED_BY(mu_);
};

}  // namespace fabricpulse::security
