// Who a peer is: the role and name its certificate's URI SAN gives,
// spiffe://<trust-domain>/<role>/<name>.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace fabricpulse::security {

// The roles of FabricPulse's control plane. Operators can do what viewers
// can, and start and abort sweeps; agents register, heartbeat and use the
// rendezvous store, each only as its own node; the coordinator is the only
// identity agents obey.
enum class Role { kCoordinator, kAgent, kOperator, kViewer };

// "coordinator", "agent", "operator", "viewer".
absl::string_view RoleName(Role role);
// Errors: INVALID_ARGUMENT naming the allowed roles.
absl::StatusOr<Role> ParseRole(absl::string_view name);

struct Identity {
  Role role = Role::kViewer;
  std::string name;  // node name for agents, user or instance name else

  // "agent/node-a"
  std::string ToString() const;
  bool operator==(const Identity& other) const {
    return role == other.role && name == other.name;
  }
};

// The trust domain every identity of a deployment shares (the SPIFFE trust
// domain); lower-case letters, digits, '.', '-' and '_', 1 to 255
// characters. Errors: INVALID_ARGUMENT naming --trust-domain.
absl::Status ValidateTrustDomain(absl::string_view trust_domain);
// A name inside an identity: 1 to 253 characters of [A-Za-z0-9._-], as a
// Kubernetes node name or a user name. Errors: INVALID_ARGUMENT naming
// `field`, quoting at most a short prefix.
absl::Status ValidateIdentityName(absl::string_view name,
                                  absl::string_view field);

// spiffe://<trust_domain>/<role>/<name>
std::string SpiffeId(absl::string_view trust_domain, const Identity& id);
// The identity of a URI SAN, or nullopt when it is not a FabricPulse
// identity of `trust_domain` (another trust domain, scheme, shape, role or
// an invalid name).
std::optional<Identity> ParseSpiffeId(absl::string_view uri,
                                      absl::string_view trust_domain);

// The one identity a certificate names: of its URI SANs, exactly one may be
// a spiffe:// URI, and it must be a FabricPulse identity of `trust_domain`
// (ROLE/NAME, nothing more). Other URI schemes are ignored. Errors:
// UNAUTHENTICATED saying the certificate names no identity, more than one,
// or a spiffe:// URI that is not ROLE/NAME of `trust_domain`.
absl::StatusOr<Identity> SoleIdentity(const std::vector<std::string>& uris,
                                      absl::string_view trust_domain);

// The trust domain of a spiffe:// URI ("" when `uri` is not one).
absl::string_view SpiffeTrustDomain(absl::string_view uri);

}  // namespace fabricpulse::security
