#include "daemon/security/authorizer.h"

#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "daemon/core/log.h"
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
                       std::shared_ptr<PolicySource> policy)
    : trust_domain_(std::move(trust_domain)), policy_(std::move(policy)) {}

grpc::Status Authorizer::Process(const InputMetadata& auth_metadata,
                                 grpc::AuthContext* context,
                                 OutputMetadata* consumed_auth_metadata,
                                 OutputMetadata* response_metadata) {
  std::string path;
  auto it = auth_metadata.find(":path");
  if (it != auth_metadata.end()) path = Text(it->second);
  std::vector<std::string> principals;
  std::optional<Identity> identity;
  int identities = 0;
  for (const grpc::string_ref& uri : context->FindPropertyValues("peer_uri")) {
    principals.push_back(Text(uri));
    if (auto id = ParseSpiffeId(principals.back(), trust_domain_)) {
      identity = *id;
      identities++;
    }
  }
  if (identities != 1) identity.reset();
  const AuthzPolicy::Decision decision =
      policy_->Current()->Evaluate(path, principals);
  if (decision.allowed) {
    if (identity) {
      context->AddProperty(kRoleProperty,
                           std::string(RoleName(identity->role)));
      context->AddProperty(kNameProperty, identity->name);
    }
    return grpc::Status::OK;
  }
  denied_++;
  const std::string method = path.substr(0, kMaxLoggedPath);
  if (!identity) {
    const std::string reason =
        absl::StrCat("the client certificate names ",
                     identities == 0 ? "no" : "more than one",
                     " FabricPulse identity (a URI SAN spiffe://",
                     trust_domain_, "/<role>/<name>); ", method, " refused");
    LogDenial(absl::StrCat("denied: ", reason));
    return grpc::Status(grpc::StatusCode::UNAUTHENTICATED, reason);
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
