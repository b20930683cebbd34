#include "daemon/common/metrics_server.h"

#include <openssl/err.h>
#include <openssl/ssl.h>

#include "absl/strings/str_cat.h"
#include "daemon/common/address.h"
#include "daemon/common/basic_auth.h"
#include "daemon/common/http_event_server.h"
#include "daemon/common/metrics_tls.h"
#include "daemon/common/scrape_hooks.h"
#include "daemon/common/web_config.h"
#include "daemon/core/log.h"
#include "daemon/core/version.h"
#include "prometheus/gauge.h"
#include "prometheus/text_serializer.h"

namespace fabricpulse::common {
namespace {

// Prometheus' text exposition format, as prometheus-cpp's own handler
// labels it.
constexpr char kTextFormat[] = "text/plain; version=0.0.4; charset=utf-8";

// Answers GET/HEAD /metrics: basic auth when users are configured, then
// the hooks and the registry, serialized.
HttpReply Scrape(const HttpRequest& request, const ScrapeHooks& hooks,
                 BasicAuthenticator* auth) {
  if (request.path != "/metrics") return PlainReply(404);
  if (request.method != "GET" && request.method != "HEAD") {
    HttpReply reply = PlainReply(405);
    reply.headers.emplace_back("Allow", "GET, HEAD");
    return reply;
  }
  if (auth != nullptr) {
    auto credentials = ParseBasicCredentials(request.authorization);
    if (!credentials || !auth->Check(credentials->first, credentials->second)) {
      HttpReply reply = PlainReply(401);
      reply.headers.emplace_back("WWW-Authenticate",
                                 "Basic realm=\"fabricpulse\"");
      return reply;
    }
  }
  HttpReply reply;
  reply.content_type = kTextFormat;
  reply.body = prometheus::TextSerializer().Serialize(hooks.Collect());
  return reply;
}

}  // namespace

void MetricsServer::SslContextFree::operator()(SSL_CTX* ctx) const {
  SSL_CTX_free(ctx);
}

MetricsServer::~MetricsServer() {
  ClearScrapeHooks();
  server_.reset();
  // Intentional: see the header.
  new std::shared_ptr<prometheus::Registry>(std::move(registry_));
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
    auto in_file = [&](const absl::Status& s) {
      return absl::Status(
          s.code(), absl::StrCat("--web-config-file ", web_config_file, ": ",
                                 s.message()));
    };
    auto tls = MetricsTls::Create(*web.tls);
    if (!tls.ok()) return in_file(tls.status());
    server->tls_ = *std::move(tls);
    server->ssl_context_.reset(SSL_CTX_new(TLS_server_method()));
    if (server->ssl_context_ == nullptr) {
      ERR_clear_error();
      return absl::InternalError("metrics: OpenSSL cannot make a TLS context");
    }
    absl::Status configured =
        server->tls_->Configure(server->ssl_context_.get());
    if (!configured.ok()) return in_file(configured);
  }
  if (!web.basic_auth_users.empty()) {
    server->auth_ = std::make_shared<BasicAuthenticator>(web.basic_auth_users);
  }
  server->registry_ = std::make_shared<prometheus::Registry>();
  prometheus::BuildGauge()
      .Name("fabricpulse_build_info")
      .Help("Build information; the value is always 1")
      .Register(*server->registry_)
      .Add({{"component", component}, {"version", core::Version()}})
      .Set(1);
  server->hooks_ = std::make_shared<ScrapeHooks>(server->registry_);

  HttpEventServer::Options options;
  options.host = hp->host;
  options.port = hp->port;
  options.tls = server->ssl_context_.get();
  options.max_connections = kMetricsMaxConnections;
  options.request_timeout = kMetricsRequestTimeout;
  options.write_timeout = kMetricsRequestTimeout;
  options.max_head_bytes = kMetricsMaxRequestBytes;
  options.handler_threads = kMetricsHandlerThreads;
  options.max_pending = kMetricsMaxPendingScrapes;
  options.listen_backlog = kMetricsListenBacklog;
  std::shared_ptr<ScrapeHooks> hooks = server->hooks_;
  std::shared_ptr<BasicAuthenticator> auth = server->auth_;
  auto http = HttpEventServer::Start(
      std::move(options), [hooks, auth](const HttpRequest& request) {
        return Scrape(request, *hooks, auth.get());
      });
  if (!http.ok()) {
    return absl::Status(
        http.status().code(),
        absl::StrCat("metrics-listen: ", http.status().message()));
  }
  server->server_ = *std::move(http);
  server->address_ = JoinHostPort(hp->host, server->server_->port());
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
