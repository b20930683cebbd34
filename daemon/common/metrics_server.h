// The /metrics endpoint (prometheus-cpp's Exposer) and the build_info gauge
// every daemon exports.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "prometheus/exposer.h"
#include "prometheus/registry.h"

namespace fabricpulse::common {

class MetricsServer {
 public:
  // Listens on HOST:PORT (port 0 picks a free one) and registers
  // fabricpulse_build_info{component,version} = 1. Errors: UNAVAILABLE the
  // address cannot be bound; INVALID_ARGUMENT bad address.
  static absl::StatusOr<std::unique_ptr<MetricsServer>> Start(
      const std::string& listen, const std::string& component);

  // Leaves the listener to process exit: civetweb's listener polls in
  // two-second quanta, so stopping it would delay every daemon's exit by up
  // to two seconds; the socket and threads go with the process.
  ~MetricsServer();

  prometheus::Registry& registry() { return *registry_; }
  // HOST:PORT actually bound.
  const std::string& address() const { return address_; }

 private:
  MetricsServer() = default;
  std::unique_ptr<prometheus::Exposer> exposer_;
  std::shared_ptr<prometheus::Registry> registry_;
  std::string address_;
};

}  // namespace fabricpulse::common
