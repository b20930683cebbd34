#include "daemon/common/health_endpoint.h"

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "daemon/common/address.h"
#include "grpcpp/resource_quota.h"

namespace fabricpulse::common {

absl::StatusOr<std::unique_ptr<HealthEndpoint>> HealthEndpoint::Start(
    const std::string& listen, std::vector<std::string> services) {
  std::unique_ptr<HealthEndpoint> health(
      new HealthEndpoint(std::move(services)));
  if (listen.empty()) return health;
  auto hp = ParseHostPort(listen, "--health-listen");
  if (!hp.ok()) return hp.status();
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(listen, grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&health->service_);
  // A second daemon must not share the port (issue 13, item 6).
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  builder.SetMaxReceiveMessageSize(4 * 1024);
  builder.AddChannelArgument(GRPC_ARG_MAX_CONCURRENT_STREAMS, 16);
  builder.AddChannelArgument(GRPC_ARG_MAX_CONNECTION_IDLE_MS, 60 * 1000);
  grpc::ResourceQuota quota("fabricpulse-health");
  quota.Resize(16 << 20);
  builder.SetResourceQuota(quota);
  health->server_ = builder.BuildAndStart();
  if (!health->server_ || port == 0) {
    return absl::UnavailableError(
        absl::StrCat("--health-listen: cannot listen on ", listen));
  }
  health->address_ = JoinHostPort(hp->host, port);
  return health;
}

void HealthEndpoint::Stop(absl::Duration deadline) {
  {
    absl::MutexLock lock(&stop_mu_);
    if (stopped_) return;
    stopped_ = true;
  }
  service_.Shutdown();
  if (server_) server_->Shutdown(absl::ToChronoTime(absl::Now() + deadline));
}

HealthEndpoint::~HealthEndpoint() { Stop(absl::Seconds(1)); }

}  // namespace fabricpulse::common
