#include "daemon/security/authorizer.h"

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "daemon/core/log.h"
#include "daemon/security/caller.h"
#include "daemon/security/identity.h"

namespace fabricpulse::security {
namespace {

constexpr int kDenialLinesPerMinute = 10;
constexpr size_t kMaxLoggedPath = 96;

std::string Text(const grpc::string_ref& ref) {
  return std::string(ref.data(), ref.size());
}

}  // namespace

Authorizer::Authorizer(std::string trust_domain,
                       std::shared_ptr<PolicySource> policy,
                       std::shared_ptr<const PeerPin> pin)
    : trust_domain_(std::move(trust_domain)),
      policy_(std::move(policy)),
      pin_(std::move(pin)) {}

grpc::Status Authorizer::Process(const InputMetadata& auth_metadata,
                                 grpc::AuthContext* context,
                                 OutputMetadata* consumed_auth_metadata,
                                 OutputMetadata* response_metadata) {
  // `context` is the connection's, shared by every call on it: it is only
  // read here, never written (each call's identity is read again from the
  // immutable peer properties, security/caller.h).
  std::string path;
  auto it = auth_metadata.find(":path");
  if (it != auth_metadata.end()) path = Text(it->second);
  const std::string method = path.substr(0, kMaxLoggedPath);
  absl::StatusOr<Identity> identity =
      SoleIdentity(PeerUris(*context), trust_domain_);
  if (!identity.ok()) {
    denied_++;
    const std::string reason =
        absl::StrCat(identity.status().message(), "; ", method, " refused");
    LogDenial(absl::StrCat("denied: ", reason));
    return grpc::Status(grpc::StatusCode::UNAUTHENTICATED, reason);
  }
  // The policy sees the one identity in its canonical form, so no pattern
  // can match a second or a malformed URI of the same certificate.
  const AuthzPolicy::Decision decision =
      policy_->Current()->Evaluate(path, {SpiffeId(trust_domain_, *identity)});
  absl::Status pinned = pin_ ? pin_->Check(*identity) : absl::OkStatus();
  if (decision.allowed && pinned.ok()) return grpc::Status::OK;
  denied_++;
  if (decision.allowed) {
    const std::string reason =
        absl::StrCat(pinned.message(), "; ", method, " refused");
    LogDenial(absl::StrCat("denied: ", reason));
    return grpc::Status(grpc::StatusCode::PERMISSION_DENIED, reason);
  }
  const std::string reason = absl::StrCat(
      identity->ToString(), " may not call ", method,
      decision.rule.empty()
          ? " (no rule of the policy allows it)"
          : absl::StrCat(" (denied by rule '", decision.rule, "')"));
  LogDenial(absl::StrCat("denied: ", reason));
  return grpc::Status(grpc::StatusCode::PERMISSION_DENIED, reason);
}

void Authorizer::LogDenial(const std::string& line) {
  const absl::Time now = absl::Now();
  uint64_t suppressed = 0;
  {
    absl::MutexLock lock(&log_mu_);
    if (now - window_start_ >= absl::Minutes(1)) {
      suppressed = suppressed_;
      suppressed_ = 0;
      window_start_ = now;
      logged_in_window_ = 0;
    }
    if (logged_in_window_ >= kDenialLinesPerMinute) {
      suppressed_++;
      return;
    }
    logged_in_window_++;
  }
  if (suppressed > 0) {
    FP_LOG_WARNING(absl::StrCat(suppressed,
                                " more denied call(s) in the last minute were "
                                "not logged"));
  }
  FP_LOG_WARNING(line);
}

}  // namespace fabricpulse::security
