// A process's TLS settings as its flags give them: --tls-cert, --tls-key,
// --tls-ca (FABRICPULSE_TLS_CERT/_KEY/_CA), --insecure, --trust-domain.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"

namespace fabricpulse::security {

struct TlsOptions {
  std::string cert_file;  // PEM: this process's certificate (+ chain)
  std::string key_file;   // PEM: its private key (unencrypted)
  std::string ca_file;    // PEM: the CA(s) peers' certificates must chain to
  // Plaintext, no identities, no authorization: explicit only.
  bool insecure = false;
  std::string trust_domain = "fabricpulse";
  // How often the files are re-read; a changed file takes effect for new
  // connections without a restart. 1 s to 1 h.
  absl::Duration refresh = absl::Seconds(10);

  // The flags alone (no file is read): either --insecure without TLS files,
  // or all three files. Errors: INVALID_ARGUMENT naming the flag and what
  // is allowed.
  absl::Status Validate() const;
};

}  // namespace fabricpulse::security
