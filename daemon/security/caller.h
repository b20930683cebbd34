// What a handler knows of its caller: the identity the authorizer found,
// the node binding of agents' calls, and the audit line of a mutating call.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "daemon/security/identity.h"
#include "grpcpp/security/auth_context.h"
#include "grpcpp/server_context.h"

namespace fabricpulse::security {

// The peer certificate's URI SANs (empty on a plaintext connection).
// Reads only: safe from any number of calls of one connection at once.
std::vector<std::string> PeerUris(const grpc::AuthContext& auth);

// The caller's identity, read per call from the certificate (nothing is
// stored on the connection, whose AuthContext every call shares): nullopt
// on a plaintext (--insecure) server. Behind the Authorizer, which admits
// only certificates naming exactly one identity of its trust domain, that
// identity; elsewhere the certificate's one spiffe:// identity, if any.
std::optional<Identity> CallerIdentity(const grpc::ServerContextBase& context);

// The call's peer without its port: "ipv4:10.0.0.7", "ipv6:[::1]" (gRPC's
// peer string cut before its last ':' when digits follow).
std::string PeerHost(const grpc::ServerContextBase& context);
std::string PeerHostOf(absl::string_view peer);

// "agent/node-a", or "anonymous ipv4:127.0.0.1:5555" on a plaintext server.
std::string CallerDescription(const grpc::ServerContextBase& context);

// Logs "audit: <caller> <action>" (info) on one line: control characters
// of client strings in `action` are shown as '?'.
void Audit(const grpc::ServerContextBase& context, absl::string_view action);

// The binding of agents' calls to their own node: OK on a plaintext server
// (no identities there) or when the caller is agent/<node>. Errors:
// PERMISSION_DENIED naming the caller and the node it claimed.
absl::Status RequireAgentNode(const grpc::ServerContextBase& context,
                              absl::string_view node);

// The node an agent's call acts for: "" on a plaintext server (nobody is
// known there), the agent's node on a TLS server. Errors: PERMISSION_DENIED
// a TLS caller that is not an agent (whatever a policy file allows).
absl::StatusOr<std::string> CallerAgentNode(
    const grpc::ServerContextBase& context);

}  // namespace fabricpulse::security
