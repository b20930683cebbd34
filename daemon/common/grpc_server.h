// Starts a daemon's TCP gRPC server on its --listen address, the one way
// the coordinator and the agent do it.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "grpcpp/grpcpp.h"

namespace fabricpulse::common {

// What one daemon's gRPC server allows whoever calls (docs/security.md,
// "Calls per caller").
struct ServerCallLimits {
  // Concurrent calls on one connection (HTTP/2 MAX_CONCURRENT_STREAMS);
  // a client past it waits for a stream to end.
  int max_streams_per_connection = 0;
};

// The coordinator serves the CLI, the web report and every agent, all on
// the callback API (no synchronous pool): the readers' and operators' calls
// run on kCoordinatorReaderThreads threads, each identity with at most
// kCoordinatorCallsPerIdentity calls in flight (coordinator/pooled_calls.h).
// No gRPC thread quota (ResourceQuota::SetMaxThreads): in gRPC 1.51 it
// refuses calls below its limit too (grpc/grpc#32680), and the agent's
// synchronous pool serves only the coordinator it registered with.
inline constexpr ServerCallLimits kCoordinatorCallLimits{
    .max_streams_per_connection = 100};
inline constexpr int kCoordinatorCallsPerIdentity = 8;
// Calls of callers without an identity (--insecure), together.
inline constexpr int kCoordinatorAnonymousCalls = 64;
// Threads that run those calls' work (coordinator/pooled_calls.h).
inline constexpr int kCoordinatorReaderThreads = 4;
inline constexpr ServerCallLimits kAgentCallLimits{.max_streams_per_connection =
                                                       100};

struct ListeningServer {
  std::unique_ptr<grpc::Server> server;
  int port = 0;  // the port bound (the one picked when `listen` had :0)
};

// Serves `service` (which outlives the server) on `listen` (HOST:PORT) with
// `credentials` (security::Credentials::Server: mutual TLS and the
// authorizer, or plaintext with --insecure), refusing requests larger than
// `max_receive_bytes` (RESOURCE_EXHAUSTED; core/limits.h sizes them from the
// bounds), holding at most what `limits` allows, and `health` (grpc.health.v1,
// health_endpoint.h) beside it when given, without SO_REUSEPORT: a port in use
// by another process (a second daemon) is refused. Errors: UNAVAILABLE
// "--listen: cannot listen on ..." (in use, bad host).
absl::StatusOr<ListeningServer> StartGrpcServer(
    const std::string& listen, grpc::Service* service,
    std::shared_ptr<grpc::ServerCredentials> credentials, int max_receive_bytes,
    const ServerCallLimits& limits, grpc::Service* health = nullptr);

}  // namespace fabricpulse::common
