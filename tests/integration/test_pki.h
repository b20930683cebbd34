// Throwaway certificates for TLS tests, made at test time with the
// `openssl` command (no private key is ever committed): a CA, a server
// certificate for 127.0.0.1 and localhost, a client certificate from the
// same CA, and a client certificate from a second, untrusted CA.
#pragma once

#include <string>

#include "absl/status/statusor.h"

namespace fabricpulse::testing {

struct TestPki {
  std::string ca_cert;
  std::string server_cert, server_key;
  std::string client_cert, client_key;
  std::string other_ca_cert;  // signed nothing the server trusts
  std::string rogue_client_cert, rogue_client_key;  // from other_ca
};

// Writes the files into `dir` (which must exist); `tag` makes the server
// certificate's subject distinct (so a test can tell two apart). Errors:
// INTERNAL an openssl command failed (its output in the message).
absl::StatusOr<TestPki> MakeTestPki(const std::string& dir,
                                    const std::string& tag = "server");

// Issues another server certificate and key from `pki`'s CA into
// `cert_path` / `key_path`, with subject CN=`cn`. Errors: as MakeTestPki.
absl::Status IssueServerCert(const TestPki& pki, const std::string& dir,
                             const std::string& cn,
                             const std::string& cert_path,
                             const std::string& key_path);

// The subject CN of the certificate the TLS server at `address` presents
// (without verifying it). Errors: UNAVAILABLE no handshake.
absl::StatusOr<std::string> PresentedCommonName(const std::string& address);

}  // namespace fabricpulse::testing
