#include "daemon/security/caller.h"

#include "absl/strings/str_cat.h"
#include "daemon/core/log.h"

namespace fabricpulse::security {

std::vector<std::string> PeerUris(const grpc::AuthContext& auth) {
  std::vector<std::string> uris;
  for (const grpc::string_ref& uri : auth.FindPropertyValues("peer_uri")) {
    uris.emplace_back(uri.data(), uri.size());
  }
  return uris;
}

std::optional<Identity> CallerIdentity(const grpc::ServerContextBase& context) {
  std::shared_ptr<const grpc::AuthContext> auth = context.auth_context();
  if (!auth || !auth->IsPeerAuthenticated()) return std::nullopt;
  const std::vector<std::string> uris = PeerUris(*auth);
  // The trust domain the Authorizer checked is the one the sole spiffe://
  // URI names; SoleIdentity refuses a second or a malformed one.
  for (const std::string& uri : uris) {
    absl::string_view domain = SpiffeTrustDomain(uri);
    if (domain.empty()) continue;
    absl::StatusOr<Identity> id = SoleIdentity(uris, domain);
    if (!id.ok()) return std::nullopt;
    return *std::move(id);
  }
  return std::nullopt;
}

std::string PeerHostOf(absl::string_view peer) {
  const size_t colon = peer.rfind(':');
  if (colon == absl::string_view::npos || colon + 1 == peer.size()) {
    return std::string(peer);
  }
  for (char c : peer.substr(colon + 1)) {
    if (c < '0' || c > '9') return std::string(peer);
  }
  return std::string(peer.substr(0, colon));
}

std::string PeerHost(const grpc::ServerContextBase& context) {
  return PeerHostOf(context.peer());
}

std::string CallerDescription(const grpc::ServerContextBase& context) {
  if (std::optional<Identity> id = CallerIdentity(context)) {
    return id->ToString();
  }
  return absl::StrCat("anonymous ", context.peer());
}

void Audit(const grpc::ServerContextBase& context, absl::string_view action) {
  std::string line =
      absl::StrCat("audit: ", CallerDescription(context), " ", action);
  // One line, whatever a client's string held.
  for (char& c : line) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  }
  FP_LOG_INFO(line);
}

absl::Status RequireAgentNode(const grpc::ServerContextBase& context,
                              absl::string_view node) {
  std::shared_ptr<const grpc::AuthContext> auth = context.auth_context();
  if (!auth || !auth->IsPeerAuthenticated()) return absl::OkStatus();
  std::optional<Identity> id = CallerIdentity(context);
  if (id && id->role == Role::kAgent && id->name == node) {
    return absl::OkStatus();
  }
  return absl::PermissionDeniedError(absl::StrCat(
      id ? id->ToString() : std::string("a caller without an identity"),
      " may not act for node '", node.substr(0, 64),
      "': an agent acts only as the node its certificate names"));
}

absl::StatusOr<std::string> CallerAgentNode(
    const grpc::ServerContextBase& context) {
  std::shared_ptr<const grpc::AuthContext> auth = context.auth_context();
  if (!auth || !auth->IsPeerAuthenticated()) return std::string();
  std::optional<Identity> id = CallerIdentity(context);
  if (id && id->role == Role::kAgent) return id->name;
  return absl::PermissionDeniedError(absl::StrCat(
      id ? id->ToString() : std::string("a caller without an identity"),
      " may not use the rendezvous store: only agents (for their own "
      "node's ranks) do"));
}

}  // namespace fabricpulse::security
