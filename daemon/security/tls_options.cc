#include "daemon/security/tls_options.h"

#include "absl/strings/str_cat.h"
#include "daemon/security/identity.h"

namespace fabricpulse::security {

absl::Status TlsOptions::Validate() const {
  const bool any = !cert_file.empty() || !key_file.empty() || !ca_file.empty();
  if (insecure) {
    if (any) {
      return absl::InvalidArgumentError(
          "--insecure: cannot be combined with --tls-cert, --tls-key or "
          "--tls-ca; give either the three TLS files or --insecure");
    }
    return absl::OkStatus();
  }
  for (const auto& [flag, value] :
       {std::pair<const char*, const std::string*>{"--tls-cert", &cert_file},
        {"--tls-key", &key_file},
        {"--tls-ca", &ca_file}}) {
    if (value->empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          flag,
          ": required (a PEM file; or FABRICPULSE_TLS_CERT, _KEY, _CA): "
          "every link is mutual TLS unless --insecure is given"));
    }
  }
  if (refresh < absl::Seconds(1) || refresh > absl::Hours(1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--tls-refresh: ", absl::FormatDuration(refresh),
                     " is out of range; allowed: 1s to 1h"));
  }
  return ValidateTrustDomain(trust_domain);
}

}  // namespace fabricpulse::security
