// Client side of mutual TLS: after the chain check against the CA, the
// server must present the FabricPulse identity the caller expects (the
// coordinator, or agent/<the node it dials>). Host names are not checked:
// the identity is, so agents need no IP SANs.
#pragma once

#include <memory>
#include <string>

#include "absl/synchronization/mutex.h"
#include "daemon/security/identity.h"
#include "grpcpp/security/tls_certificate_verifier.h"

namespace fabricpulse::security {

// Whom a channel must reach: `role`, and `name` unless it is empty.
struct PeerExpectation {
  Role role = Role::kCoordinator;
  std::string name;

  std::string ToString() const;  // "coordinator/*", "agent/node-a"
};

// The last refusal of any verifier sharing it, for the CLI's error line
// (gRPC reports a refused handshake as a bare UNAVAILABLE). Thread-safe.
class VerificationLog {
 public:
  void Record(std::string reason);
  std::string Last() const;

 private:
  mutable absl::Mutex mu_;
  std::string last_ ABSL_GUARDED_BY(mu_);
};

// A gRPC certificate verifier that accepts the server only when one of its
// URI SANs is `expected` in `trust_domain`. Refusals are recorded in `log`
// (may be null) and logged at debug level.
std::shared_ptr<grpc::experimental::CertificateVerifier> MakePeerVerifier(
    std::string trust_domain, PeerExpectation expected,
    std::shared_ptr<VerificationLog> log);

}  // namespace fabricpulse::security
