// A process's side of mutual TLS: its certificate, key and CA (watched for
// changes), the gRPC server and channel credentials made from them, and its
// own identity. With --insecure: plaintext credentials and no identity.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "daemon/security/identity.h"
#include "daemon/security/peer_verifier.h"
#include "daemon/security/tls_options.h"
#include "grpcpp/security/auth_metadata_processor.h"
#include "grpcpp/security/credentials.h"
#include "grpcpp/security/server_credentials.h"
#include "grpcpp/security/tls_certificate_provider.h"

namespace fabricpulse::security {

// Thread-safe (immutable but for the watched files and the verification
// log). Shared by every server and channel of a process.
class Credentials {
 public:
  // Validates `options`, then reads and checks the files: each a regular
  // file of at most 1 MiB; the certificate parses, the key is its key, it
  // chains to the CA now, and it names exactly one FabricPulse identity of
  // the trust domain (a URI SAN spiffe://<trust-domain>/<role>/<name>).
  // Logs a warning when the certificate expires within 7 days. Errors:
  // INVALID_ARGUMENT naming the flag, the file and what is wrong.
  static absl::StatusOr<std::shared_ptr<Credentials>> Create(
      const TlsOptions& options);

  bool insecure() const { return options_.insecure; }
  const TlsOptions& options() const { return options_; }
  // This process's identity; nullopt when insecure.
  const std::optional<Identity>& self() const { return self_; }
  // With --insecure, logs (warning) that every link is plaintext; daemons
  // call it once at start.
  void WarnIfInsecure() const;
  // Errors: INVALID_ARGUMENT when not insecure and this process's identity
  // is not `role` (and `name`, unless empty), naming `flag`.
  absl::Status RequireSelf(Role role, const std::string& name,
                           const std::string& flag) const;

  // TLS that requires a client certificate chaining to the CA, every call
  // passed to `authorizer` (which must not be null when not insecure);
  // plaintext when insecure.
  std::shared_ptr<grpc::ServerCredentials> Server(
      std::shared_ptr<grpc::AuthMetadataProcessor> authorizer) const;
  // TLS presenting this process's certificate, accepting a server only when
  // its certificate chains to the CA and names `peer`; plaintext when
  // insecure.
  std::shared_ptr<grpc::ChannelCredentials> Channel(
      const PeerExpectation& peer) const;

  // Why the last server was refused (empty when none was).
  std::string LastRefusal() const { return log_->Last(); }

 private:
  explicit Credentials(TlsOptions options) : options_(std::move(options)) {}

  const TlsOptions options_;
  std::optional<Identity> self_;
  std::shared_ptr<grpc::experimental::FileWatcherCertificateProvider> provider_;
  std::shared_ptr<VerificationLog> log_ = std::make_shared<VerificationLog>();
};

}  // namespace fabricpulse::security
