#include "daemon/security/peer_pin.h"

#include "absl/strings/str_cat.h"

namespace fabricpulse::security {

void PeerPin::Set(const Identity& id) {
  if (id.role != role_) return;
  absl::MutexLock lock(&mu_);
  pinned_ = id;
}

std::optional<Identity> PeerPin::Get() const {
  absl::MutexLock lock(&mu_);
  return pinned_;
}

absl::Status PeerPin::Check(const Identity& caller) const {
  if (caller.role != role_) return absl::OkStatus();
  std::optional<Identity> pinned = Get();
  if (pinned && *pinned == caller) return absl::OkStatus();
  return absl::PermissionDeniedError(absl::StrCat(
      caller.ToString(), " is not the ", RoleName(role_), " this process ",
      pinned ? absl::StrCat("registered with (", pinned->ToString(), ")")
             : std::string("has registered with (none yet)")));
}

}  // namespace fabricpulse::security
