#include "daemon/common/metrics_server.h"

#include <exception>

#include "absl/strings/str_cat.h"
#include "daemon/common/address.h"
#include "prometheus/gauge.h"

#ifndef FABRICPULSE_VERSION
#define FABRICPULSE_VERSION "dev"
#endif

namespace fabricpulse::common {

MetricsServer::~MetricsServer() {
  // Intentional: see the header. The registry stays alive with it, since
  // scrapes may still be served until the process ends.
  (void)exposer_.release();
  new std::shared_ptr<prometheus::Registry>(std::move(registry_));
}

absl::StatusOr<std::unique_ptr<MetricsServer>> MetricsServer::Start(
    const std::string& listen, const std::string& component) {
  auto hp = ParseHostPort(listen, "metrics-listen");
  if (!hp.ok()) return hp.status();
  std::unique_ptr<MetricsServer> server(new MetricsServer());
  try {
    // civetweb binds at construction and throws when it cannot.
    server->exposer_ = std::make_unique<prometheus::Exposer>(listen, 2);
  } catch (const std::exception& e) {
    return absl::UnavailableError(absl::StrCat(
        "metrics-listen: cannot listen on ", listen, ": ", e.what()));
  }
  std::vector<int> ports = server->exposer_->GetListeningPorts();
  if (ports.empty()) {
    return absl::UnavailableError(
        absl::StrCat("metrics-listen: cannot listen on ", listen));
  }
  server->address_ = JoinHostPort(hp->host, ports.front());
  server->registry_ = std::make_shared<prometheus::Registry>();
  prometheus::BuildGauge()
      .Name("fabricpulse_build_info")
      .Help("Build information; the value is always 1")
      .Register(*server->registry_)
      .Add({{"component", component}, {"version", FABRICPULSE_VERSION}})
      .Set(1);
  server->exposer_->RegisterCollectable(server->registry_);
  return server;
}

}  // namespace fabricpulse::common
