// The one place every call to a TLS server is authorized (Debian's gRPC
// 1.51 has no authorization-policy engine to plug in): an
// AuthMetadataProcessor on the server credentials that evaluates the policy
// on the call's method and the client certificate's one FabricPulse
// identity before any handler runs. It writes nothing: gRPC hands it the
// connection's AuthContext, which every call on that connection shares, so
// the handlers read the identity again from the certificate's properties
// (security/caller.h).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "daemon/security/peer_pin.h"
#include "daemon/security/policy_source.h"
#include "grpcpp/security/auth_metadata_processor.h"

namespace fabricpulse::security {

// Thread-safe; never blocks (runs on gRPC's own threads).
class Authorizer final : public grpc::AuthMetadataProcessor {
 public:
  // With a `pin`, a caller of the pinned role must also be the pinned
  // identity (an agent obeys the coordinator it registered with).
  Authorizer(std::string trust_domain, std::shared_ptr<PolicySource> policy,
             std::shared_ptr<const PeerPin> pin = nullptr);

  bool IsBlocking() const override { return false; }
  // OK, or PERMISSION_DENIED naming the caller and the method (or the
  // identity pinned for the caller's role), or
  // UNAUTHENTICATED when the certificate does not name exactly one
  // FabricPulse identity of the trust domain (SoleIdentity), whatever the
  // policy says. Denials are logged, at most 10 lines a minute (then
  // counted).
  grpc::Status Process(const InputMetadata& auth_metadata,
                       grpc::AuthContext* context,
                       OutputMetadata* consumed_auth_metadata,
                       OutputMetadata* response_metadata) override;

  uint64_t denied() const { return denied_.load(); }

 private:
  void LogDenial(const std::string& line);

  const std::string trust_domain_;
  const std::shared_ptr<PolicySource> policy_;
  const std::shared_ptr<const PeerPin> pin_;
  std::atomic<uint64_t> denied_{0};
  absl::Mutex log_mu_;
  absl::Time window_start_ ABSL_GUARDED_BY(log_mu_) = absl::InfinitePast();
  int logged_in_window_ ABSL_GUARDED_BY(log_mu_) = 0;
  uint64_t suppressed_ ABSL_GUARDED_BY(log_mu_) = 0;
};

}  // namespace fabricpulse::security
