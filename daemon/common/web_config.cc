#include "daemon/common/web_config.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <system_error>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "daemon/core/plan_parser.h"
#include "yaml-cpp/yaml.h"

namespace fabricpulse::common {
namespace {

using core::config_internal::ConfigError;
using core::config_internal::Field;
using core::config_internal::Fields;
using core::config_internal::JoinPath;
using core::config_internal::ReadMap;
using core::config_internal::ReadString;

// exporter-toolkit keys we know and refuse, with the reason.
struct Unsupported {
  absl::string_view key;
  absl::string_view why;
};
constexpr Unsupported kUnsupportedTop[] = {
    {"http_server_config",
     "not supported: /metrics speaks HTTP/1.1 only and adds no headers"},
    {"rate_limit", "not supported"},
};
constexpr Unsupported kUnsupportedTls[] = {
    {"cert", "not supported: give the certificate as cert_file"},
    {"key", "not supported: give the key as key_file"},
    {"client_ca", "not supported: give the CA as client_ca_file"},
    {"cipher_suites",
     "not supported: OpenSSL's defaults apply (TLS 1.2 with forward-secret "
     "AEAD suites, and TLS 1.3)"},
    {"curve_preferences", "not supported: OpenSSL's defaults apply"},
    {"prefer_server_cipher_suites",
     "not supported: the server's order always applies"},
    {"client_allowed_sans", "not supported"},
};

template <size_t N>
std::vector<absl::string_view> AllowedKeys(
    std::vector<absl::string_view> supported, const Unsupported (&extra)[N]) {
  for (const Unsupported& u : extra) supported.push_back(u.key);
  return supported;
}

template <size_t N>
absl::Status RefuseUnsupported(const Fields& fields, absl::string_view path,
                               const Unsupported (&list)[N]) {
  for (const Unsupported& u : list) {
    auto it = fields.find(std::string(u.key));
    if (it != fields.end()) {
      return ConfigError(it->second.line, JoinPath(path, u.key), u.why);
    }
  }
  return absl::OkStatus();
}

std::string Resolve(const std::string& file, absl::string_view base_dir) {
  if (file.empty() || file[0] == '/' || base_dir.empty()) return file;
  if (base_dir.back() == '/') return absl::StrCat(base_dir, file);
  return absl::StrCat(base_dir, "/", file);
}

absl::StatusOr<std::string> ReadFileName(const Field& field,
                                         absl::string_view path,
                                         absl::string_view base_dir) {
  absl::StatusOr<std::string> name = ReadString(field, path);
  if (!name.ok()) return name.status();
  if (name->empty()) {
    return ConfigError(field.line, path, "empty; give a file name");
  }
  return Resolve(*name, base_dir);
}

absl::StatusOr<ClientAuthType> ParseClientAuth(const Field& field,
                                               absl::string_view path) {
  absl::StatusOr<std::string> text = ReadString(field, path);
  if (!text.ok()) return text.status();
  static constexpr std::pair<absl::string_view, ClientAuthType> kTypes[] = {
      {"NoClientCert", ClientAuthType::kNoClientCert},
      {"RequestClientCert", ClientAuthType::kRequestClientCert},
      {"RequireAnyClientCert", ClientAuthType::kRequireAnyClientCert},
      {"VerifyClientCertIfGiven", ClientAuthType::kVerifyClientCertIfGiven},
      {"RequireAndVerifyClientCert",
       ClientAuthType::kRequireAndVerifyClientCert},
  };
  for (const auto& [name, type] : kTypes) {
    if (*text == name) return type;
  }
  return ConfigError(
      field.line, path,
      absl::StrCat("'", text->substr(0, 40),
                   "' is not a client auth type; allowed: NoClientCert, "
                   "RequestClientCert, RequireAnyClientCert, "
                   "VerifyClientCertIfGiven, RequireAndVerifyClientCert"));
}

absl::StatusOr<TlsVersion> ParseVersion(const Field& field,
                                        absl::string_view path) {
  absl::StatusOr<std::string> text = ReadString(field, path);
  if (!text.ok()) return text.status();
  if (*text == "TLS12") return TlsVersion::kTls12;
  if (*text == "TLS13") return TlsVersion::kTls13;
  if (*text == "TLS10" || *text == "TLS11") {
    return ConfigError(field.line, path,
                       absl::StrCat(*text,
                                    " is not supported (obsolete); allowed: "
                                    "TLS12, TLS13"));
  }
  return ConfigError(field.line, path,
                     absl::StrCat("'", text->substr(0, 40),
                                  "' is not a TLS version; allowed: TLS12, "
                                  "TLS13"));
}

absl::StatusOr<std::optional<TlsServerConfig>> ParseTls(
    const Field& field, absl::string_view base_dir) {
  const std::string path = "tls_server_config";
  if (field.value.IsNull()) return std::nullopt;
  absl::StatusOr<Fields> fields =
      ReadMap(field.value, field.line, path,
              AllowedKeys({"cert_file", "key_file", "client_auth_type",
                           "client_ca_file", "min_version", "max_version"},
                          kUnsupportedTls));
  if (!fields.ok()) return fields.status();
  absl::Status unsupported = RefuseUnsupported(*fields, path, kUnsupportedTls);
  if (!unsupported.ok()) return unsupported;
  // An empty section is no TLS, as exporter-toolkit has it.
  if (fields->empty()) return std::nullopt;
  TlsServerConfig tls;
  for (const char* required : {"cert_file", "key_file"}) {
    if (fields->count(required) == 0) {
      return ConfigError(field.line, path,
                         absl::StrCat("missing required key '", required,
                                      "' (tls_server_config needs cert_file "
                                      "and key_file)"));
    }
  }
  absl::StatusOr<std::string> cert = ReadFileName(
      fields->at("cert_file"), JoinPath(path, "cert_file"), base_dir);
  if (!cert.ok()) return cert.status();
  tls.cert_file = *cert;
  absl::StatusOr<std::string> key = ReadFileName(
      fields->at("key_file"), JoinPath(path, "key_file"), base_dir);
  if (!key.ok()) return key.status();
  tls.key_file = *key;
  if (auto it = fields->find("client_auth_type"); it != fields->end()) {
    absl::StatusOr<ClientAuthType> type =
        ParseClientAuth(it->second, JoinPath(path, "client_auth_type"));
    if (!type.ok()) return type.status();
    tls.client_auth = *type;
  }
  if (auto it = fields->find("client_ca_file"); it != fields->end()) {
    absl::StatusOr<std::string> ca =
        ReadFileName(it->second, JoinPath(path, "client_ca_file"), base_dir);
    if (!ca.ok()) return ca.status();
    tls.client_ca_file = *ca;
  }
  const bool verifies =
      tls.client_auth == ClientAuthType::kVerifyClientCertIfGiven ||
      tls.client_auth == ClientAuthType::kRequireAndVerifyClientCert;
  if (verifies && tls.client_ca_file.empty()) {
    return ConfigError(fields->at("client_auth_type").line,
                       JoinPath(path, "client_auth_type"),
                       "VerifyClientCertIfGiven and RequireAndVerifyClientCert "
                       "need client_ca_file");
  }
  if (tls.client_auth == ClientAuthType::kNoClientCert &&
      !tls.client_ca_file.empty()) {
    return ConfigError(fields->at("client_ca_file").line,
                       JoinPath(path, "client_ca_file"),
                       "set without a client_auth_type that asks for client "
                       "certificates; use RequireAndVerifyClientCert");
  }
  for (const char* name : {"min_version", "max_version"}) {
    auto it = fields->find(name);
    if (it == fields->end()) continue;
    absl::StatusOr<TlsVersion> version =
        ParseVersion(it->second, JoinPath(path, name));
    if (!version.ok()) return version.status();
    (std::string(name) == "min_version" ? tls.min_version : tls.max_version) =
        *version;
  }
  if (tls.min_version > tls.max_version) {
    return ConfigError(fields->at("min_version").line,
                       JoinPath(path, "min_version"),
                       "is above max_version; allowed: min_version <= "
                       "max_version");
  }
  return tls;
}

absl::Status ParseUsers(const Field& field, WebConfig& config) {
  const std::string path = "basic_auth_users";
  if (field.value.IsNull()) return absl::OkStatus();
  // User names are free-form keys; ReadMap still refuses duplicates.
  absl::StatusOr<Fields> users =
      ReadMap(field.value, field.line, path, /*allowed=*/{});
  if (!users.ok()) return users.status();
  if (users->size() > static_cast<size_t>(kMaxBasicAuthUsers)) {
    return ConfigError(field.line, path,
                       absl::StrCat(users->size(), " users; allowed: at most ",
                                    kMaxBasicAuthUsers));
  }
  for (const auto& [user, hash_field] : *users) {
    const std::string shown = user.substr(0, 40);
    const bool printable = std::all_of(
        user.begin(), user.end(),
        [](unsigned char c) { return c >= 0x20 && c != 0x7f && c != ':'; });
    if (user.empty() || user.size() > kMaxBasicAuthUserBytes || !printable) {
      return ConfigError(
          hash_field.line, JoinPath(path, shown),
          absl::StrCat("invalid user name; allowed: 1 to ",
                       kMaxBasicAuthUserBytes,
                       " bytes, no ':' and no control characters"));
    }
    const std::string sub = JoinPath(path, shown);
    absl::StatusOr<std::string> hash = ReadString(hash_field, sub);
    if (!hash.ok()) return hash.status();
    if (!IsBcryptHash(*hash)) {
      // Never echo the value: it may be a password written in clear.
      return ConfigError(hash_field.line, sub,
                         "not a bcrypt hash; allowed: $2a$, $2b$ or $2y$ "
                         "hashes of cost 04 to 31 (e.g. htpasswd -nBC 10 "
                         "\"\" | tr -d ':\\n')");
    }
    config.basic_auth_users.emplace(user, *hash);
  }
  return absl::OkStatus();
}

}  // namespace

bool IsBcryptHash(absl::string_view hash) {
  if (hash.size() != 60 || hash[0] != '$' || hash[1] != '2' ||
      (hash[2] != 'a' && hash[2] != 'b' && hash[2] != 'y') || hash[3] != '$' ||
      !absl::ascii_isdigit(hash[4]) || !absl::ascii_isdigit(hash[5]) ||
      hash[6] != '$') {
    return false;
  }
  const int cost = (hash[4] - '0') * 10 + (hash[5] - '0');
  if (cost < 4 || cost > 31) return false;
  for (char c : hash.substr(7)) {
    if (!absl::ascii_isalnum(c) && c != '.' && c != '/') return false;
  }
  return true;
}

absl::StatusOr<WebConfig> ParseWebConfig(absl::string_view yaml,
                                         absl::string_view base_dir) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml));
  } catch (const YAML::Exception& e) {
    return ConfigError(e.mark.is_null() ? 0 : e.mark.line + 1, "",
                       absl::StrCat("not valid YAML: ", e.msg));
  }
  WebConfig config;
  if (root.IsNull()) return config;  // an empty file: no TLS, no auth
  absl::StatusOr<Fields> top = ReadMap(
      root, 1, "",
      AllowedKeys({"tls_server_config", "basic_auth_users"}, kUnsupportedTop));
  if (!top.ok()) return top.status();
  absl::Status unsupported = RefuseUnsupported(*top, "", kUnsupportedTop);
  if (!unsupported.ok()) return unsupported;
  if (auto it = top->find("tls_server_config"); it != top->end()) {
    absl::StatusOr<std::optional<TlsServerConfig>> tls =
        ParseTls(it->second, base_dir);
    if (!tls.ok()) return tls.status();
    config.tls = *tls;
  }
  if (auto it = top->find("basic_auth_users"); it != top->end()) {
    absl::Status users = ParseUsers(it->second, config);
    if (!users.ok()) return users;
  }
  return config;
}

absl::StatusOr<WebConfig> LoadWebConfigFile(const std::string& path) {
  const std::string prefix = absl::StrCat("--web-config-file ", path, ": ");
  auto errno_status = [&prefix](int error) {
    return absl::Status(absl::ErrnoToStatusCode(error),
                        absl::StrCat(prefix, "cannot read it: ",
                                     std::generic_category().message(error)));
  };
  // O_NONBLOCK: opening a FIFO must not wait for a writer.
  const int fd =
      open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return errno_status(errno);
  struct stat st {};
  if (fstat(fd, &st) != 0) {
    const int error = errno;
    close(fd);
    return errno_status(error);
  }
  if (!S_ISREG(st.st_mode)) {
    close(fd);
    return absl::InvalidArgumentError(
        absl::StrCat(prefix, "not a regular file"));
  }
  std::string text;
  char buffer[8192];
  while (text.size() <= kMaxWebConfigBytes) {
    const ssize_t n = read(fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int error = errno;
      close(fd);
      return errno_status(error);
    }
    if (n == 0) break;
    text.append(buffer, static_cast<size_t>(n));
  }
  close(fd);
  if (text.size() > kMaxWebConfigBytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        prefix, "larger than ", kMaxWebConfigBytes, " bytes (the bound)"));
  }
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? ""
                          : slash == 0               ? "/"
                                                     : path.substr(0, slash);
  absl::StatusOr<WebConfig> config = ParseWebConfig(text, dir);
  if (!config.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(prefix, config.status().message()));
  }
  return config;
}

}  // namespace fabricpulse::common
