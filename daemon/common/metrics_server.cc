#include "daemon/common/metrics_server.h"

#include <CivetServer.h>
#include <civetweb.h>

#include <exception>

#include "absl/strings/str_cat.h"
#include "daemon/common/address.h"
#include "daemon/common/basic_auth.h"
#include "daemon/common/metrics_tls.h"
#include "daemon/common/scrape_hooks.h"
#include "daemon/common/web_config.h"
#include "daemon/core/log.h"
#include "daemon/core/version.h"
#include "prometheus/gauge.h"

// From civetweb_tls/: linked so that civetweb finds OpenSSL 3 under the
// names it dlopen()s (see civetweb_tls/CMakeLists.txt).
extern "C" int fabricpulse_civetweb_ssl_shim();
extern "C" unsigned long fabricpulse_civetweb_crypto_shim();

namespace fabricpulse::common {
namespace {

// civetweb calls init_ssl synchronously inside the Exposer's constructor,
// on the constructing thread, with its own CivetServer as user data (which
// prometheus-cpp does not let us set): the TLS settings reach it through
// this thread-local, set only around that constructor.
struct TlsSetup {
  MetricsTls* tls = nullptr;
  absl::Status status = absl::OkStatus();
  bool called = false;
};
thread_local TlsSetup* tls_setup = nullptr;

int InitSsl(void* ssl_ctx, void* /*civet_server*/) {
  if (tls_setup == nullptr || tls_setup->tls == nullptr) return -1;
  tls_setup->called = true;
  tls_setup->status = tls_setup->tls->Configure(static_cast<SSL_CTX*>(ssl_ctx));
  // 1: configured, civetweb adds nothing; -1: civetweb fails the start.
  return tls_setup->status.ok() ? 1 : -1;
}

// civetweb's own messages (handshake failures, timeouts): debug lines, one
// line each, without control characters, at most 200 bytes.
int LogCivetweb(const mg_connection*, const char* message) {
  std::string line(message == nullptr ? "" : message);
  if (line.size() > 200) line.resize(200);
  for (char& c : line) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  }
  FP_LOG_DEBUG(absl::StrCat("metrics: civetweb: ", line));
  return 1;
}

absl::Status CivetwebTlsAvailable() {
  if (fabricpulse_civetweb_ssl_shim() != 1 ||
      fabricpulse_civetweb_crypto_shim() == 0) {
    return absl::FailedPreconditionError("civetweb's OpenSSL shims are broken");
  }
  // Loads OpenSSL the way civetweb does; a missing function shows here as
  // a cleared TLS bit rather than as a crash at the first connection.
  if ((mg_init_library(MG_FEATURES_TLS) & MG_FEATURES_TLS) == 0) {
    return absl::FailedPreconditionError(
        "tls_server_config: civetweb cannot load OpenSSL: the libssl.so and "
        "libcrypto.so the daemon links (daemon/common/civetweb_tls) were not "
        "found beside it; reinstall the whole bundle");
  }
  return absl::OkStatus();
}

std::vector<std::string> CivetwebOptions(const std::string& listen, bool tls) {
  return {"listening_ports",
          tls ? absl::StrCat(listen, "s") : listen,
          "num_threads",
          absl::StrCat(kMetricsThreads),
          "request_timeout_ms",
          absl::StrCat(absl::ToInt64Milliseconds(kMetricsRequestTimeout)),
          "enable_keep_alive",
          "no",
          "connection_queue",
          absl::StrCat(kMetricsConnectionQueue),
          "listen_backlog",
          absl::StrCat(kMetricsListenBacklog),
          "max_request_size",
          absl::StrCat(kMetricsMaxRequestBytes)};
}

}  // namespace

MetricsServer::~MetricsServer() {
  ClearScrapeHooks();
  // Intentional: see the header. The registry, the TLS settings and the
  // users stay alive with it, since scrapes may still be served until the
  // process ends.
  (void)exposer_.release();
  (void)tls_.release();
  new std::shared_ptr<BasicAuthenticator>(std::move(auth_));
  new std::shared_ptr<prometheus::Registry>(std::move(registry_));
  new std::shared_ptr<ScrapeHooks>(std::move(hooks_));
}

void MetricsServer::AddScrapeHook(std::function<void()> hook) {
  hooks_->Add(std::move(hook));
}

void MetricsServer::ClearScrapeHooks() {
  if (hooks_ != nullptr) hooks_->Clear();
}

absl::StatusOr<std::unique_ptr<MetricsServer>> MetricsServer::Start(
    const std::string& listen, const std::string& component,
    const std::string& web_config_file) {
  auto hp = ParseHostPort(listen, "metrics-listen");
  if (!hp.ok()) return hp.status();
  WebConfig web;
  if (!web_config_file.empty()) {
    auto loaded = LoadWebConfigFile(web_config_file);
    if (!loaded.ok()) return loaded.status();
    web = *std::move(loaded);
  }
  std::unique_ptr<MetricsServer> server(new MetricsServer());
  if (web.tls) {
    auto tls = MetricsTls::Create(*web.tls);
    if (!tls.ok()) {
      return absl::Status(tls.status().code(),
                          absl::StrCat("--web-config-file ", web_config_file,
                                       ": ", tls.status().message()));
    }
    server->tls_ = *std::move(tls);
    absl::Status available = CivetwebTlsAvailable();
    if (!available.ok()) return available;
  }
  CivetCallbacks callbacks;
  callbacks.log_message = &LogCivetweb;
  callbacks.init_ssl = &InitSsl;
  TlsSetup setup;
  setup.tls = server->tls_.get();
  tls_setup = &setup;
  try {
    // civetweb binds at construction and throws when it cannot.
    server->exposer_ = std::make_unique<prometheus::Exposer>(
        CivetwebOptions(listen, server->tls_ != nullptr), &callbacks);
  } catch (const std::exception& e) {
    tls_setup = nullptr;
    if (!setup.status.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--web-config-file ", web_config_file, ": ", setup.status.message()));
    }
    return absl::UnavailableError(absl::StrCat(
        "metrics-listen: cannot listen on ", listen, ": ", e.what()));
  }
  tls_setup = nullptr;
  if (server->tls_ && !setup.called) {
    return absl::InternalError("metrics: civetweb did not set up TLS");
  }
  std::vector<int> ports = server->exposer_->GetListeningPorts();
  if (ports.empty()) {
    return absl::UnavailableError(
        absl::StrCat("metrics-listen: cannot listen on ", listen));
  }
  server->address_ = JoinHostPort(hp->host, ports.front());
  if (!web.basic_auth_users.empty()) {
    server->auth_ = std::make_shared<BasicAuthenticator>(web.basic_auth_users);
    std::weak_ptr<BasicAuthenticator> auth = server->auth_;
    server->exposer_->RegisterAuth(
        [auth](const std::string& user, const std::string& password) {
          std::shared_ptr<BasicAuthenticator> a = auth.lock();
          return a != nullptr && a->Check(user, password);
        },
        "fabricpulse", "/metrics");
  }
  server->registry_ = std::make_shared<prometheus::Registry>();
  prometheus::BuildGauge()
      .Name("fabricpulse_build_info")
      .Help("Build information; the value is always 1")
      .Register(*server->registry_)
      .Add({{"component", component}, {"version", core::Version()}})
      .Set(1);
  server->hooks_ = std::make_shared<ScrapeHooks>(server->registry_);
  server->exposer_->RegisterCollectable(server->hooks_);
  if (!web_config_file.empty()) {
    FP_LOG_INFO(absl::StrCat(
        "metrics: ", server->scheme(), " on ", server->address_,
        web.basic_auth_users.empty()
            ? ", no basic auth"
            : absl::StrCat(", basic auth (", web.basic_auth_users.size(),
                           " user(s))")));
  }
  return server;
}

}  // namespace fabricpulse::common
