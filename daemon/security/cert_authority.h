// Makes certificates: a throwaway CA for `fabricpulse local`, the tests and
// `fabricpulse certs`, and the certificates it issues. ECDSA P-256 keys,
// SHA-256 signatures, X.509 v3 with the FabricPulse identity as URI SAN.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace fabricpulse::security {

struct KeyAndCertificate {
  std::string key_pem;          // PKCS#8 private key
  std::string certificate_pem;  // one certificate
};

struct CertificateRequest {
  std::string common_name;
  std::vector<std::string> uri_sans;  // e.g. spiffe://fabricpulse/agent/n1
  std::vector<std::string> dns_sans;
  std::vector<std::string> ip_sans;  // "127.0.0.1", "::1"
  // From 5 minutes before now (clock skew between hosts) for this long.
  absl::Duration valid_for = absl::Hours(24 * 365);
};

// A self-signed CA (basicConstraints CA:TRUE, pathlen 0). Errors: INTERNAL
// naming the OpenSSL step that failed.
absl::StatusOr<KeyAndCertificate> CreateCertificateAuthority(
    const std::string& common_name, absl::Duration valid_for);

// A leaf certificate signed by `ca`, for both TLS server and client use.
// Errors: INVALID_ARGUMENT a malformed SAN or a CA that does not parse;
// INTERNAL an OpenSSL step failed.
absl::StatusOr<KeyAndCertificate> IssueCertificate(
    const KeyAndCertificate& ca, const CertificateRequest& request);

}  // namespace fabricpulse::security
