// TLS for the /metrics endpoint: configures the endpoint's SSL_CTX with
// OpenSSL, from a web config's tls_server_config.
//
// The certificate and key are re-read when either file changes (checked at
// most once a second, on a handshake), so a rotated certificate (e.g. by
// cert-manager) is served without a restart; a pair that fails to load or
// does not match keeps the last good one (and logs it once). The other
// settings (client auth, CA, versions) are read once, at start.
//
// Thread-safety: Configure is called once, before the server serves; the
// per-handshake callback is thread-safe.
#pragma once

#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "daemon/common/web_config.h"

typedef struct ssl_ctx_st SSL_CTX;
typedef struct ssl_st SSL;

namespace fabricpulse::common {

class MetricsTls {
 public:
  struct KeyPair;  // a certificate, its chain and key (opaque)

  // Loads the certificate and key (and checks that they match) and the
  // client CA. Errors: INVALID_ARGUMENT "tls_server_config.<key>: cannot
  // load '<file>': <reason>".
  static absl::StatusOr<std::unique_ptr<MetricsTls>> Create(
      const TlsServerConfig& config);
  ~MetricsTls();

  // Applies the configuration to `ctx` (not owned; it must not outlive
  // this object). Errors: INVALID_ARGUMENT naming the key.
  absl::Status Configure(SSL_CTX* ctx);

  // Certificate reloads that took effect (for tests).
  int reloads() const;

 private:
  struct FileStamp {
    long long mtime_ns = 0, size = 0, inode = 0, device = 0;
    bool operator==(const FileStamp&) const = default;
  };

  explicit MetricsTls(TlsServerConfig config) : config_(std::move(config)) {}
  static FileStamp StampOf(const std::string& file);
  static int OnCertificate(SSL* ssl, void* self);
  // The pair to present now, reloading it first when its files changed.
  std::shared_ptr<const KeyPair> Current();

  const TlsServerConfig config_;
  mutable absl::Mutex mu_;
  std::shared_ptr<const KeyPair> pair_ ABSL_GUARDED_BY(mu_);
  FileStamp cert_stamp_ ABSL_GUARDED_BY(mu_), key_stamp_ ABSL_GUARDED_BY(mu_);
  FileStamp failed_cert_ ABSL_GUARDED_BY(mu_), failed_key_ ABSL_GUARDED_BY(mu_);
  absl::Time next_check_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
  int reloads_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace fabricpulse::common
