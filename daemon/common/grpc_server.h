// Starts a daemon's TCP gRPC server on its --listen address, the one way
// the coordinator and the agent do it.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "grpcpp/grpcpp.h"

namespace fabricpulse::common {

struct ListeningServer {
  std::unique_ptr<grpc::Server> server;
  int port = 0;  // the port bound (the one picked when `listen` had :0)
};

// Serves `service` (which outlives the server) on `listen` (HOST:PORT) with
// `credentials` (security::Credentials::Server: mutual TLS and the
// authorizer, or plaintext with --insecure), refusing requests larger than
// `max_receive_bytes` (RESOURCE_EXHAUSTED; core/limits.h sizes them from the
// bounds), and `health` (grpc.health.v1, health_endpoint.h) beside it when
// given, without SO_REUSEPORT: a port in use by another process (a second
// daemon) is refused. Errors: UNAVAILABLE "--listen: cannot listen on ..."
// (in use, bad host).
absl::StatusOr<ListeningServer> StartGrpcServer(
    const std::string& listen, grpc::Service* service,
    std::shared_ptr<grpc::ServerCredentials> credentials,
    int max_receive_bytes, grpc::Service* health = nullptr);

}  // namespace fabricpulse::common
