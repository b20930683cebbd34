// The one place every call to a TLS server is authorized (Debian's gRPC
// 1.51 has no authorization-policy engine to plug in): an
// AuthMetadataProcessor on the server credentials that evaluates the policy
// on the call's method and the client certificate's URI SANs before any
// handler runs, and records the caller's FabricPulse identity in the call's
// AuthContext for the handlers (security/caller.h).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "daemon/security/policy_source.h"
#include "grpcpp/security/auth_metadata_processor.h"

namespace fabricpulse::security {

// AuthContext properties the authorizer adds for an identified caller.
inline constexpr char kRoleProperty[] = "fabricpulse_role";
inline constexpr char kNameProperty[] = "fabricpulse_name";

// Thread-safe; never blocks (runs on gRPC's own threads).
class Authorizer final : public grpc::AuthMetadataProcessor {
 public:
  Authorizer(std::string trust_domain, std::shared_ptr<PolicySource> policy);

  bool IsBlocking() const override { return false; }
  // OK, or PERMISSION_DENIED naming the caller and the method, or
  // UNAUTHENTICATED when the certificate names no FabricPulse identity of
  // the trust domain and the policy does not let such a peer in. Denials
  // are logged, at most 10 lines a minute (then counted).
  grpc::Status Process(const InputMetadata& auth_metadata,
                       grpc::AuthContext* context,
                       OutputMetadata* consumed_auth_metadata,
                       OutputMetadata* response_metadata) override;

  uint64_t denied() const { return denied_.load(); }

 private:
  void LogDenial(const std::string& line);

  const std::string trust_domain_;
  const std::shared_ptr<PolicySource> policy_;
  std::atomic<uint64_t> denied_{0};
  absl::Mutex log_mu_;
  absl::Time window_start_ ABSL_GUARDED_BY(log_mu_) = absl::InfinitePast();
  int logged_in_window_ ABSL_GUARDED_BY(log_mu_) = 0;
  uint64_t suppressed_ ABSL_GUARDED_BY(log_mu_) = 0;
};

}  // namespace fabricpulse::security
