// The fleet simulator's mutual TLS, as production agents speak it: every
// simulated agent gets its own certificate naming agent/<its node>, issued
// in memory from the deployment's CA (the CA key stays in the test's
// folder; nothing is written). Each agent's server requires a client
// certificate of the CA; its channel to the coordinator presents its
// certificate and accepts only a server naming coordinator/<any name>.
// The simulated agents do not authorize their callers (the coordinator's
// side is what the benchmark measures).
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "daemon/security/cert_authority.h"
#include "grpcpp/security/credentials.h"
#include "grpcpp/security/server_credentials.h"

namespace fabricpulse::scale {

struct SimAgentTls {
  std::shared_ptr<grpc::ServerCredentials> server;
  std::shared_ptr<grpc::ChannelCredentials> to_coordinator;
};

// Thread-compatible; Issue may be called from one thread at a time.
class SimCertAuthority {
 public:
  // Reads the CA certificate and key (PEM files, as `fabricpulse certs`
  // writes them). Errors: INVALID_ARGUMENT naming the flag and file.
  static absl::StatusOr<SimCertAuthority> Load(const std::string& cert_file,
                                               const std::string& key_file,
                                               const std::string& trust_domain);

  // A certificate for agent/<node> and the credentials made from it.
  // Errors: INTERNAL an OpenSSL step failed.
  absl::StatusOr<SimAgentTls> Issue(const std::string& node) const;

 private:
  SimCertAuthority(security::KeyAndCertificate ca, std::string trust_domain)
      : ca_(std::move(ca)), trust_domain_(std::move(trust_domain)) {}

  security::KeyAndCertificate ca_;
  std::string trust_domain_;
};

}  // namespace fabricpulse::scale
