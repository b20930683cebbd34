#include "daemon/common/metrics_tls.h"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "daemon/core/log.h"

namespace fabricpulse::common {

struct MetricsTls::KeyPair {
  X509* cert = nullptr;
  EVP_PKEY* key = nullptr;
  STACK_OF(X509) * chain = nullptr;
  ~KeyPair() {
    X509_free(cert);
    EVP_PKEY_free(key);
    sk_X509_pop_free(chain, X509_free);
  }
};

namespace {

// The reason of the newest OpenSSL error (and an empty queue after).
std::string OpenSslError() {
  unsigned long last = 0;
  while (unsigned long e = ERR_get_error()) last = e;
  if (last == 0) return "unknown OpenSSL error";
  char text[256];
  ERR_error_string_n(last, text, sizeof(text));
  return text;
}

absl::Status LoadError(absl::string_view key, const std::string& file,
                       absl::string_view reason) {
  return absl::InvalidArgumentError(absl::StrCat(
      "tls_server_config.", key, ": cannot load '", file, "': ", reason));
}

absl::StatusOr<std::shared_ptr<const MetricsTls::KeyPair>> LoadPair(
    const TlsServerConfig& config) {
  auto pair = std::make_shared<MetricsTls::KeyPair>();
  ERR_clear_error();
  BIO* cert_bio = BIO_new_file(config.cert_file.c_str(), "r");
  if (cert_bio == nullptr) {
    return LoadError("cert_file", config.cert_file, std::strerror(errno));
  }
  pair->cert = PEM_read_bio_X509(cert_bio, nullptr, nullptr, nullptr);
  if (pair->cert != nullptr) {
    // The rest of the file is the chain, leaf first as usual.
    pair->chain = sk_X509_new_null();
    while (X509* extra =
               PEM_read_bio_X509(cert_bio, nullptr, nullptr, nullptr)) {
      sk_X509_push(pair->chain, extra);
    }
    ERR_clear_error();  // the end of the file reads as "no start line"
  }
  BIO_free(cert_bio);
  if (pair->cert == nullptr) {
    return LoadError("cert_file", config.cert_file,
                     absl::StrCat("no PEM certificate (", OpenSslError(), ")"));
  }
  BIO* key_bio = BIO_new_file(config.key_file.c_str(), "r");
  if (key_bio == nullptr) {
    return LoadError("key_file", config.key_file, std::strerror(errno));
  }
  pair->key = PEM_read_bio_PrivateKey(key_bio, nullptr, nullptr, nullptr);
  BIO_free(key_bio);
  if (pair->key == nullptr) {
    return LoadError(
        "key_file", config.key_file,
        absl::StrCat("no unencrypted PEM private key (", OpenSslError(), ")"));
  }
  if (X509_check_private_key(pair->cert, pair->key) != 1) {
    ERR_clear_error();
    return LoadError("key_file", config.key_file,
                     absl::StrCat("it is not the key of cert_file '",
                                  config.cert_file, "'"));
  }
  return std::shared_ptr<const MetricsTls::KeyPair>(std::move(pair));
}

int AcceptAnyCertificate(int, X509_STORE_CTX*) { return 1; }

}  // namespace

MetricsTls::~MetricsTls() = default;

MetricsTls::FileStamp MetricsTls::StampOf(const std::string& file) {
  struct stat st {};
  FileStamp s;
  if (stat(file.c_str(), &st) == 0) {
    s.mtime_ns = static_cast<long long>(st.st_mtim.tv_sec) * 1000000000LL +
                 st.st_mtim.tv_nsec;
    s.size = st.st_size;
    s.inode = static_cast<long long>(st.st_ino);
    s.device = static_cast<long long>(st.st_dev);
  }
  return s;
}

absl::StatusOr<std::unique_ptr<MetricsTls>> MetricsTls::Create(
    const TlsServerConfig& config) {
  std::unique_ptr<MetricsTls> tls(new MetricsTls(config));
  // Stamped before reading: a change while loading is seen as a change.
  const FileStamp cert_stamp = StampOf(config.cert_file);
  const FileStamp key_stamp = StampOf(config.key_file);
  auto pair = LoadPair(config);
  if (!pair.ok()) return pair.status();
  if (!config.client_ca_file.empty()) {
    // Checked here so that a bad CA fails the start with its key's name.
    STACK_OF(X509_NAME)* names =
        SSL_load_client_CA_file(config.client_ca_file.c_str());
    if (names == nullptr) {
      return LoadError(
          "client_ca_file", config.client_ca_file,
          absl::StrCat("no PEM certificate (", OpenSslError(), ")"));
    }
    sk_X509_NAME_pop_free(names, X509_NAME_free);
  }
  absl::MutexLock lock(&tls->mu_);
  tls->pair_ = *std::move(pair);
  tls->cert_stamp_ = cert_stamp;
  tls->key_stamp_ = key_stamp;
  return tls;
}

absl::Status MetricsTls::Configure(SSL_CTX* ctx) {
  ERR_clear_error();
  auto version = [](TlsVersion v) {
    return v == TlsVersion::kTls12 ? TLS1_2_VERSION : TLS1_3_VERSION;
  };
  if (SSL_CTX_set_min_proto_version(ctx, version(config_.min_version)) != 1 ||
      SSL_CTX_set_max_proto_version(ctx, version(config_.max_version)) != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "tls_server_config.min_version: refused by OpenSSL: ", OpenSslError()));
  }
  // Session resumption with client certificates needs a context id.
  static constexpr unsigned char kSessionContext[] = "fabricpulse-metrics";
  SSL_CTX_set_session_id_context(ctx, kSessionContext,
                                 sizeof(kSessionContext) - 1);
  std::shared_ptr<const KeyPair> pair;
  {
    absl::MutexLock lock(&mu_);
    pair = pair_;
  }
  if (SSL_CTX_use_cert_and_key(ctx, pair->cert, pair->key, pair->chain, 1) !=
      1) {
    return LoadError("cert_file", config_.cert_file, OpenSslError());
  }
  SSL_CTX_set_cert_cb(ctx, &MetricsTls::OnCertificate, this);

  int mode = SSL_VERIFY_NONE;
  SSL_verify_cb callback = nullptr;
  switch (config_.client_auth) {
    case ClientAuthType::kNoClientCert:
      break;
    case ClientAuthType::kRequestClientCert:
      mode = SSL_VERIFY_PEER;
      callback = &AcceptAnyCertificate;
      break;
    case ClientAuthType::kRequireAnyClientCert:
      mode = SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT;
      callback = &AcceptAnyCertificate;
      break;
    case ClientAuthType::kVerifyClientCertIfGiven:
      mode = SSL_VERIFY_PEER;
      break;
    case ClientAuthType::kRequireAndVerifyClientCert:
      mode = SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT;
      break;
  }
  if (!config_.client_ca_file.empty()) {
    if (SSL_CTX_load_verify_locations(ctx, config_.client_ca_file.c_str(),
                                      nullptr) != 1) {
      return LoadError("client_ca_file", config_.client_ca_file,
                       OpenSslError());
    }
    // Tell clients which CAs are accepted.
    SSL_CTX_set_client_CA_list(
        ctx, SSL_load_client_CA_file(config_.client_ca_file.c_str()));
  }
  SSL_CTX_set_verify(ctx, mode, callback);
  return absl::OkStatus();
}

int MetricsTls::OnCertificate(SSL* ssl, void* self) {
  std::shared_ptr<const KeyPair> pair =
      static_cast<MetricsTls*>(self)->Current();
  return SSL_use_cert_and_key(ssl, pair->cert, pair->key, pair->chain, 1) == 1
             ? 1
             : 0;
}

std::shared_ptr<const MetricsTls::KeyPair> MetricsTls::Current() {
  absl::MutexLock lock(&mu_);
  const absl::Time now = absl::Now();
  if (now < next_check_) return pair_;
  next_check_ = now + absl::Seconds(1);
  const FileStamp cert = StampOf(config_.cert_file);
  const FileStamp key = StampOf(config_.key_file);
  if ((cert == cert_stamp_ && key == key_stamp_) ||
      (cert == failed_cert_ && key == failed_key_)) {
    return pair_;
  }
  auto loaded = LoadPair(config_);
  if (!loaded.ok()) {
    failed_cert_ = cert;
    failed_key_ = key;
    FP_LOG_ERROR(absl::StrCat("metrics: keeping the previous TLS certificate: ",
                              loaded.status().message()));
    return pair_;
  }
  pair_ = *std::move(loaded);
  cert_stamp_ = cert;
  key_stamp_ = key;
  ++reloads_;
  FP_LOG_INFO(absl::StrCat("metrics: TLS certificate reloaded from '",
                           config_.cert_file, "'"));
  return pair_;
}

int MetricsTls::reloads() const {
  absl::MutexLock lock(&mu_);
  return reloads_;
}

}  // namespace fabricpulse::common
