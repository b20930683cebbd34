// The /metrics endpoint (HttpEventServer: one event thread, non-blocking
// connections; prometheus-cpp's text format) and the build_info gauge every
// daemon exports, with the --web-config-file (TLS, basic auth;
// web_config.h) and bounds that keep slow clients from starving it.
//
// Bounds (docs/metrics.md):
// - kMetricsMaxConnections connections open at once; a new one closes the
//   oldest that is not being answered, so a scrape gets in however many
//   clients stall (each costs a file descriptor and a few KiB, no thread).
// - kMetricsRequestTimeout from accept to a complete request head (the TLS
//   handshake included, so a client dribbling bytes is cut too), then
//   kMetricsRequestTimeout for the reply.
// - No keep-alive: a connection serves one request, then closes.
// - Request heads of at most kMetricsMaxRequestBytes.
// - kMetricsHandlerThreads threads answer (bcrypt, collection); at most
//   kMetricsMaxPendingScrapes complete requests wait for them (503 beyond).
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "prometheus/registry.h"

typedef struct ssl_ctx_st SSL_CTX;

namespace fabricpulse::common {

inline constexpr int kMetricsMaxConnections = 512;
inline constexpr absl::Duration kMetricsRequestTimeout = absl::Seconds(5);
inline constexpr int kMetricsHandlerThreads = 4;
inline constexpr int kMetricsMaxPendingScrapes = 64;
inline constexpr int kMetricsListenBacklog = 128;
inline constexpr int kMetricsMaxRequestBytes = 16 * 1024;

class BasicAuthenticator;
class HttpEventServer;
class MetricsTls;
class ScrapeHooks;

class MetricsServer {
 public:
  // Listens on HOST:PORT (port 0 picks a free one) and registers
  // fabricpulse_build_info{component,version} = 1 (version:
  // core::Version(), what --version prints). With a non-empty
  // `web_config_file`, serves what it says: HTTPS (tls_server_config) and/or
  // basic auth on /metrics (basic_auth_users). The file is read once, here;
  // the certificate and key files it names are re-read when they change.
  // Errors: INVALID_ARGUMENT a bad address, or a bad web config (naming
  // "--web-config-file FILE", the key and what is allowed); NOT_FOUND etc.
  // the web config cannot be read; UNAVAILABLE the address cannot be bound.
  static absl::StatusOr<std::unique_ptr<MetricsServer>> Start(
      const std::string& listen, const std::string& component,
      const std::string& web_config_file = "");

  // Stops serving (joins the server's threads). The registry stays alive
  // until the process ends: metrics registered in it may be updated by
  // objects that outlive this one.
  ~MetricsServer();

  prometheus::Registry& registry() { return *registry_; }
  // Runs `hook` at every scrape of /metrics, before the registry is
  // collected (scrape_hooks.h): for figures read only when someone looks.
  void AddScrapeHook(std::function<void()> hook);
  // No hook runs once this returns; call it before what the hooks use goes
  // (the destructor calls it too).
  void ClearScrapeHooks();
  // HOST:PORT actually bound.
  const std::string& address() const { return address_; }
  // "https" with a tls_server_config, else "http".
  const char* scheme() const { return tls_ ? "https" : "http"; }

 private:
  MetricsServer() = default;
  struct SslContextFree {
    void operator()(SSL_CTX* ctx) const;
  };
  // Declared before server_: the server uses them until it stops.
  std::unique_ptr<MetricsTls> tls_;
  std::unique_ptr<SSL_CTX, SslContextFree> ssl_context_;
  std::shared_ptr<BasicAuthenticator> auth_;
  std::shared_ptr<prometheus::Registry> registry_;
  // What a scrape collects: registry_, after the hooks.
  std::shared_ptr<ScrapeHooks> hooks_;
  std::unique_ptr<HttpEventServer> server_;
  std::string address_;
};

}  // namespace fabricpulse::common
