// What a daemon checks of its TLS files at start, so that a wrong file stops
// it with one clear line instead of failing every handshake later.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace fabricpulse::security {

struct CertificateSummary {
  std::string subject;                // "CN=node-a"
  std::vector<std::string> uri_sans;  // every URI SAN
  absl::Time not_before;
  absl::Time not_after;
};

// The first certificate of a PEM bundle. Errors: INVALID_ARGUMENT no
// certificate in it.
absl::StatusOr<CertificateSummary> SummarizeCertificate(absl::string_view pem);

// Errors: INVALID_ARGUMENT the key does not parse, or is not the private key
// of the bundle's first certificate.
absl::Status CheckKeyMatchesCertificate(absl::string_view key_pem,
                                        absl::string_view certificate_pem);

// Verifies the bundle's first certificate, with the bundle's other
// certificates as intermediates, against the CA bundle at `at`. Errors:
// INVALID_ARGUMENT naming OpenSSL's reason (expired, not signed by the CA,
// ...), or a CA bundle with no certificate.
absl::Status VerifyCertificateChain(absl::string_view certificate_pem,
                                    absl::string_view ca_pem, absl::Time at);

}  // namespace fabricpulse::security
