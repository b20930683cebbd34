// The /metrics endpoint (prometheus-cpp's Exposer over civetweb) and the
// build_info gauge every daemon exports, with the --web-config-file (TLS,
// basic auth; web_config.h) and bounds that keep slow clients from starving
// it.
//
// Bounds (docs/metrics.md):
// - kMetricsThreads worker threads, each serving one connection at a time;
//   accepted connections beyond them wait in a queue of
//   kMetricsConnectionQueue, then in the kernel's backlog of
//   kMetricsListenBacklog; past that the kernel refuses connections.
// - A connection holds a thread at most about 3 x kMetricsRequestTimeout:
//   the TLS handshake, the request head (counted from its first byte, so a
//   client dribbling bytes is cut too) and the response write each have
//   kMetricsRequestTimeout.
// - No keep-alive: a connection serves one request, then closes.
// - Request heads of at most kMetricsMaxRequestBytes.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "prometheus/exposer.h"
#include "prometheus/registry.h"

namespace fabricpulse::common {

inline constexpr int kMetricsThreads = 16;
inline constexpr absl::Duration kMetricsRequestTimeout = absl::Seconds(5);
inline constexpr int kMetricsConnectionQueue = 32;
inline constexpr int kMetricsListenBacklog = 128;
inline constexpr int kMetricsMaxRequestBytes = 16 * 1024;

class BasicAuthenticator;
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
  // the web config cannot be read; FAILED_PRECONDITION civetweb cannot load
  // OpenSSL; UNAVAILABLE the address cannot be bound.
  static absl::StatusOr<std::unique_ptr<MetricsServer>> Start(
      const std::string& listen, const std::string& component,
      const std::string& web_config_file = "");

  // Leaves the listener to process exit: civetweb's listener polls in
  // two-second quanta, so stopping it would delay every daemon's exit by up
  // to two seconds; the socket and threads go with the process.
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
  // Declared before exposer_: the server's callbacks use them.
  std::unique_ptr<MetricsTls> tls_;
  std::shared_ptr<BasicAuthenticator> auth_;
  std::unique_ptr<prometheus::Exposer> exposer_;
  std::shared_ptr<prometheus::Registry> registry_;
  // What the exposer collects: registry_, after the hooks.
  std::shared_ptr<ScrapeHooks> hooks_;
  std::string address_;
};

}  // namespace fabricpulse::common
