#include "daemon/security/peer_verifier.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "daemon/core/log.h"

namespace fabricpulse::security {
namespace {

class PeerVerifier final
    : public grpc::experimental::ExternalCertificateVerifier {
 public:
  PeerVerifier(std::string trust_domain, PeerExpectation expected,
               std::shared_ptr<VerificationLog> log)
      : trust_domain_(std::move(trust_domain)),
        expected_(std::move(expected)),
        log_(std::move(log)) {}

  bool Verify(grpc::experimental::TlsCustomVerificationCheckRequest* request,
              std::function<void(grpc::Status)> callback,
              grpc::Status* sync_status) override {
    std::vector<std::string> seen;
    for (const grpc::string_ref& uri : request->uri_names()) {
      const std::string text(uri.data(), uri.size());
      std::optional<Identity> id = ParseSpiffeId(text, trust_domain_);
      if (id && id->role == expected_.role &&
          (expected_.name.empty() || id->name == expected_.name)) {
        *sync_status = grpc::Status::OK;
        return true;
      }
      seen.push_back(text.substr(0, 128));
    }
    const std::string target(request->target_name().data(),
                             request->target_name().size());
    std::string reason = absl::StrCat(
        "the server at ", target, " is not ", expected_.ToString(),
        " of trust domain ", trust_domain_, ": its certificate names ",
        seen.empty() ? "no URI SAN" : absl::StrJoin(seen, ", "));
    // The caller reports it: the status of the call names it, and the CLI
    // prints LastRefusal() on one line.
    FP_LOG_DEBUG(reason);
    if (log_) log_->Record(reason);
    *sync_status = grpc::Status(grpc::StatusCode::UNAUTHENTICATED, reason);
    return true;  // answered synchronously
  }

  void Cancel(grpc::experimental::TlsCustomVerificationCheckRequest*) override {
  }

 private:
  const std::string trust_domain_;
  const PeerExpectation expected_;
  const std::shared_ptr<VerificationLog> log_;
};

}  // namespace

std::string PeerExpectation::ToString() const {
  return absl::StrCat(RoleName(role), "/", name.empty() ? "*" : name);
}

void VerificationLog::Record(std::string reason) {
  absl::MutexLock lock(&mu_);
  last_ = std::move(reason);
}

std::string VerificationLog::Last() const {
  absl::MutexLock lock(&mu_);
  return last_;
}

std::shared_ptr<grpc::experimental::CertificateVerifier> MakePeerVerifier(
    std::string trust_domain, PeerExpectation expected,
    std::shared_ptr<VerificationLog> log) {
  return grpc::experimental::ExternalCertificateVerifier::Create<PeerVerifier>(
      std::move(trust_domain), std::move(expected), std::move(log));
}

}  // namespace fabricpulse::security
