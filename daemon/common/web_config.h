// The daemons' --web-config-file: TLS and basic auth for /metrics, in the
// Prometheus exporter-toolkit format
// (https://github.com/prometheus/exporter-toolkit/blob/master/docs/web-configuration.md).
//
// Supported subset (anything else is refused, naming the key):
//   tls_server_config:
//     cert_file, key_file       PEM files (relative paths are taken from the
//                               web config file's folder, as exporter-toolkit
//                               does); both required once the section has a
//                               key
//     client_auth_type          NoClientCert (default), RequestClientCert,
//                               RequireAnyClientCert, VerifyClientCertIfGiven,
//                               RequireAndVerifyClientCert
//     client_ca_file            required by the two Verify* types; refused
//                               with NoClientCert
//     min_version, max_version  TLS12 (default min) or TLS13 (default max)
//   basic_auth_users:           user: bcrypt hash ($2a$, $2b$ or $2y$)
// Known exporter-toolkit keys refused as unsupported: tls_server_config's
// cert, key, client_ca (inline PEM), cipher_suites, curve_preferences,
// prefer_server_cipher_suites, client_allowed_sans; min/max_version TLS10
// and TLS11; http_server_config (HTTP/1.1 only, no extra headers);
// rate_limit.
//
// Thread-safety: stateless functions.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace fabricpulse::common {

// Bounds: the file's size, the users, one user name.
inline constexpr size_t kMaxWebConfigBytes = 64 * 1024;
inline constexpr int kMaxBasicAuthUsers = 64;
inline constexpr size_t kMaxBasicAuthUserBytes = 256;

// exporter-toolkit's names (Go's tls.ClientAuthType).
enum class ClientAuthType {
  kNoClientCert,
  kRequestClientCert,           // asks for a certificate, checks nothing
  kRequireAnyClientCert,        // needs one, does not verify it
  kVerifyClientCertIfGiven,     // verifies one if sent
  kRequireAndVerifyClientCert,  // needs one that client_ca_file signed
};

enum class TlsVersion { kTls12, kTls13 };

struct TlsServerConfig {
  std::string cert_file;  // absolute, or relative to the process's folder
  std::string key_file;
  ClientAuthType client_auth = ClientAuthType::kNoClientCert;
  std::string client_ca_file;  // "" = none
  TlsVersion min_version = TlsVersion::kTls12;
  TlsVersion max_version = TlsVersion::kTls13;
};

struct WebConfig {
  std::optional<TlsServerConfig> tls;  // nullopt: plain HTTP
  // user -> bcrypt hash; empty: no authentication.
  std::map<std::string, std::string> basic_auth_users;
};

// Parses the YAML text of a web config. Relative file names are resolved
// against `base_dir` ("" leaves them as they are). Errors: INVALID_ARGUMENT
// "config line N: <key path>: <problem and what is allowed>" for the first
// problem (unknown or unsupported key, bad value, missing cert_file or
// key_file, a hash that is not bcrypt, too many users).
absl::StatusOr<WebConfig> ParseWebConfig(absl::string_view yaml,
                                         absl::string_view base_dir = "");

// Reads and parses `path`: a regular file of at most kMaxWebConfigBytes
// (a FIFO or device is refused without blocking). Every error starts with
// "--web-config-file <path>: ". Errors: INVALID_ARGUMENT a bad file (as
// ParseWebConfig, or not a regular file, or too big); NOT_FOUND,
// PERMISSION_DENIED etc. (errno's code) it cannot be read.
absl::StatusOr<WebConfig> LoadWebConfigFile(const std::string& path);

// True for "$2a$", "$2b$" or "$2y$", a two-digit cost 04..31, and 53
// characters of bcrypt's base64 (salt and digest): 60 characters in all.
bool IsBcryptHash(absl::string_view hash);

}  // namespace fabricpulse::common
