// A daemon's grpc.health.v1 (health_service.h): the service, which the
// daemon also registers on its main gRPC server, and, with --health-listen,
// a plaintext gRPC server that serves only it. That listener is for
// probes that cannot present a client certificate (the kubelet's native
// gRPC probe) once the main port requires mutual TLS; it tells nothing but
// SERVING / NOT_SERVING.
//
// Bounds of the health-only server: requests of at most 4 KiB, 16 streams
// per connection, 16 Watch calls, connections idle for 60 s closed, 16 MiB
// of gRPC memory (resource quota).
//
// Thread-safety: thread-safe.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "daemon/common/health_service.h"
#include "grpcpp/grpcpp.h"

namespace fabricpulse::common {

class HealthEndpoint {
 public:
  // Creates the service (NOT_SERVING) for "" and `services`; when `listen`
  // (HOST:PORT, :0 picks a port) is not empty, starts the health-only
  // server on it. Errors: INVALID_ARGUMENT a bad address; UNAVAILABLE
  // "--health-listen: cannot listen on ...".
  static absl::StatusOr<std::unique_ptr<HealthEndpoint>> Start(
      const std::string& listen, std::vector<std::string> services);
  ~HealthEndpoint();  // Stop(1 s)

  // Register on the daemon's main server too.
  HealthService* service() { return &service_; }
  // HOST:PORT of the health-only server; "" when there is none.
  const std::string& address() const { return address_; }

  void SetServing() { service_.SetServing(true); }
  // NOT_SERVING for good (shutdown has begun); the listener stays up.
  void NotServing() { service_.Shutdown(); }
  // NOT_SERVING, then stops the health-only server, cancelling calls still
  // open at `deadline`. Idempotent.
  void Stop(absl::Duration deadline);

 private:
  explicit HealthEndpoint(std::vector<std::string> services)
      : service_(std::move(services)) {}

  HealthService service_;
  std::unique_ptr<grpc::Server> server_;
  std::string address_;
  absl::Mutex stop_mu_;
  bool stopped_ ABSL_GUARDED_BY(stop_mu_) = false;
};

}  // namespace fabricpulse::common
