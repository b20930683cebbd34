#include "tests/scale/sim_tls.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "daemon/core/bounded_file.h"
#include "daemon/security/peer_verifier.h"
#include "grpcpp/security/tls_certificate_provider.h"
#include "grpcpp/security/tls_credentials_options.h"

namespace fabricpulse::scale {
namespace {

absl::StatusOr<std::string> ReadPem(const std::string& path,
                                    const std::string& flag) {
  absl::StatusOr<std::string> text =
      core::ReadBoundedFile(path, core::kMaxPemFileBytes, flag);
  if (!text.ok()) return absl::InvalidArgumentError(text.status().message());
  return text;
}

}  // namespace

absl::StatusOr<SimCertAuthority> SimCertAuthority::Load(
    const std::string& cert_file, const std::string& key_file,
    const std::string& trust_domain) {
  security::KeyAndCertificate ca;
  absl::StatusOr<std::string> cert = ReadPem(cert_file, "--tls-ca-cert");
  if (!cert.ok()) return cert.status();
  absl::StatusOr<std::string> key = ReadPem(key_file, "--tls-ca-key");
  if (!key.ok()) return key.status();
  ca.certificate_pem = *std::move(cert);
  ca.key_pem = *std::move(key);
  return SimCertAuthority(std::move(ca), trust_domain);
}

absl::StatusOr<SimAgentTls> SimCertAuthority::Issue(
    const std::string& node) const {
  security::CertificateRequest request;
  request.common_name = node;
  request.uri_sans = {
      absl::StrCat("spiffe://", trust_domain_, "/agent/", node)};
  request.valid_for = absl::Hours(24);
  absl::StatusOr<security::KeyAndCertificate> issued =
      security::IssueCertificate(ca_, request);
  if (!issued.ok()) return issued.status();
  auto provider =
      std::make_shared<grpc::experimental::StaticDataCertificateProvider>(
          ca_.certificate_pem,
          std::vector<grpc::experimental::IdentityKeyCertPair>{
              {issued->key_pem, issued->certificate_pem}});
  SimAgentTls tls;
  grpc::experimental::TlsServerCredentialsOptions server(provider);
  server.watch_root_certs();
  server.watch_identity_key_cert_pairs();
  server.set_cert_request_type(
      GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
  tls.server = grpc::experimental::TlsServerCredentials(server);
  grpc::experimental::TlsChannelCredentialsOptions channel;
  channel.set_certificate_provider(provider);
  channel.watch_root_certs();
  channel.watch_identity_key_cert_pairs();
  channel.set_verify_server_certs(true);
  channel.set_check_call_host(false);
  channel.set_certificate_verifier(security::MakePeerVerifier(
      trust_domain_, {security::Role::kCoordinator, ""}, nullptr));
  tls.to_coordinator = grpc::experimental::TlsCredentials(channel);
  return tls;
}

}  // namespace fabricpulse::scale
