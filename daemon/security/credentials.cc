#include "daemon/security/credentials.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "daemon/core/bounded_file.h"
#include "daemon/core/log.h"
#include "daemon/security/x509_check.h"
#include "grpcpp/security/tls_credentials_options.h"

namespace fabricpulse::security {
namespace {

constexpr absl::Duration kExpiryWarning = absl::Hours(24 * 7);

// The file's contents (core::ReadBoundedFile: a regular file of at most
// 1 MiB, never blocking on a FIFO). Errors: INVALID_ARGUMENT naming `flag`
// and the path.
absl::StatusOr<std::string> ReadPemFile(const std::string& path,
                                        const std::string& flag) {
  absl::StatusOr<std::string> text =
      core::ReadBoundedFile(path, core::kMaxPemFileBytes, flag);
  if (!text.ok()) return absl::InvalidArgumentError(text.status().message());
  return text;
}

absl::Status Prefixed(const std::string& prefix, const absl::Status& s) {
  return absl::Status(s.code(), absl::StrCat(prefix, s.message()));
}

}  // namespace

absl::StatusOr<std::shared_ptr<Credentials>> Credentials::Create(
    const TlsOptions& options) {
  absl::Status valid = options.Validate();
  if (!valid.ok()) return valid;
  std::shared_ptr<Credentials> out(new Credentials(options));
  if (options.insecure) return out;
  absl::StatusOr<std::string> cert =
      ReadPemFile(options.cert_file, "--tls-cert");
  if (!cert.ok()) return cert.status();
  absl::StatusOr<std::string> key = ReadPemFile(options.key_file, "--tls-key");
  if (!key.ok()) return key.status();
  absl::StatusOr<std::string> ca = ReadPemFile(options.ca_file, "--tls-ca");
  if (!ca.ok()) return ca.status();
  const std::string cert_where =
      absl::StrCat("--tls-cert ", options.cert_file, ": ");
  absl::StatusOr<CertificateSummary> summary = SummarizeCertificate(*cert);
  if (!summary.ok()) return Prefixed(cert_where, summary.status());
  absl::Status matches = CheckKeyMatchesCertificate(*key, *cert);
  if (!matches.ok()) {
    return Prefixed(absl::StrCat("--tls-key ", options.key_file, ": "),
                    matches);
  }
  absl::Status chain = VerifyCertificateChain(*cert, *ca, absl::Now());
  if (!chain.ok()) {
    return Prefixed(
        absl::StrCat(cert_where, "(with --tls-ca ", options.ca_file, ") "),
        chain);
  }
  std::vector<Identity> ids;
  for (const std::string& uri : summary->uri_sans) {
    if (auto id = ParseSpiffeId(uri, options.trust_domain)) ids.push_back(*id);
  }
  if (ids.size() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        cert_where,
        "must name exactly one FabricPulse identity, a URI SAN "
        "spiffe://",
        options.trust_domain,
        "/<coordinator|agent|operator|viewer>/<name>; it names ", ids.size(),
        " (URI SANs: ",
        summary->uri_sans.empty() ? "none"
                                  : absl::StrJoin(summary->uri_sans, ", "),
        ")"));
  }
  out->self_ = ids.front();
  if (summary->not_after - absl::Now() < kExpiryWarning) {
    FP_LOG_WARNING(absl::StrCat(cert_where, "expires at ",
                                absl::FormatTime(summary->not_after),
                                "; replace it (the file is re-read every ",
                                absl::FormatDuration(options.refresh), ")"));
  }
  out->provider_ =
      std::make_shared<grpc::experimental::FileWatcherCertificateProvider>(
          options.key_file, options.cert_file, options.ca_file,
          static_cast<unsigned int>(absl::ToInt64Seconds(options.refresh)));
  return out;
}

void Credentials::WarnIfInsecure() const {
  if (!insecure()) return;
  FP_LOG_WARNING(
      "--insecure: every gRPC link of this process is plaintext and "
      "unauthenticated; anyone who can reach its ports can start, abort and "
      "read sweeps, use the rendezvous store or register as any node");
}

absl::Status Credentials::RequireSelf(Role role, const std::string& name,
                                      const std::string& flag) const {
  if (insecure()) return absl::OkStatus();
  const Identity wanted{role, name};
  if (self_->role == role && (name.empty() || self_->name == name)) {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(
      absl::StrCat("--tls-cert ", options_.cert_file, ": names ",
                   self_->ToString(), ", but this process must be ",
                   RoleName(role), "/", name.empty() ? "<any name>" : name,
                   flag.empty() ? "" : " (", flag, flag.empty() ? "" : ")"));
}

std::shared_ptr<grpc::ServerCredentials> Credentials::Server(
    std::shared_ptr<grpc::AuthMetadataProcessor> authorizer) const {
  if (insecure()) return grpc::InsecureServerCredentials();
  grpc::experimental::TlsServerCredentialsOptions tls(provider_);
  tls.watch_root_certs();
  tls.watch_identity_key_cert_pairs();
  tls.set_cert_request_type(
      GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
  std::shared_ptr<grpc::ServerCredentials> creds =
      grpc::experimental::TlsServerCredentials(tls);
  creds->SetAuthMetadataProcessor(std::move(authorizer));
  return creds;
}

std::shared_ptr<grpc::ChannelCredentials> Credentials::Channel(
    const PeerExpectation& peer) const {
  if (insecure()) return grpc::InsecureChannelCredentials();
  grpc::experimental::TlsChannelCredentialsOptions tls;
  tls.set_certificate_provider(provider_);
  tls.watch_root_certs();
  tls.watch_identity_key_cert_pairs();
  tls.set_verify_server_certs(true);
  tls.set_check_call_host(false);
  tls.set_certificate_verifier(
      MakePeerVerifier(options_.trust_domain, peer, log_));
  return grpc::experimental::TlsCredentials(tls);
}

}  // namespace fabricpulse::security
