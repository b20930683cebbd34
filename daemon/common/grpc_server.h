// Starts a daemon's TCP gRPC server on its --listen address, the one way
// the coordinator and the agent do it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "grpcpp/grpcpp.h"

namespace fabricpulse::common {

// What one daemon's gRPC server may hold at once, whoever calls
// (docs/security.md, "Bounds per caller"). A call past a bound is answered
// RESOURCE_EXHAUSTED at once.
struct ServerCallLimits {
  // Threads of the synchronous pool (gRPC's thread quota; its pollers
  // count): handlers of synchronous methods in flight at once. Methods on
  // the callback API (heartbeats, rendezvous, sweep streams) take none.
  int max_sync_threads = 0;
  // Concurrent calls on one connection (HTTP/2 MAX_CONCURRENT_STREAMS);
  // a client past it waits for a stream to end.
  int max_streams_per_connection = 0;
  // Memory gRPC may use for the server's connections and calls (its
  // resource quota); past it, it stops reading and refuses new calls.
  int64_t memory_bytes = 0;
};

// The coordinator serves the CLI, the web report and every agent, all on
// the callback API (no synchronous pool): the readers' and operators' calls
// run on kCoordinatorReaderThreads threads, each identity with at most
// kCoordinatorCallsPerIdentity calls in flight (coordinator/pooled_calls.h).
inline constexpr ServerCallLimits kCoordinatorCallLimits{
    .max_sync_threads = 32,
    .max_streams_per_connection = 100,
    .memory_bytes = int64_t{256} << 20};
inline constexpr int kCoordinatorCallsPerIdentity = 8;
// Calls of callers without an identity (--insecure), together.
inline constexpr int kCoordinatorAnonymousCalls = 64;
// Threads that run those calls' work (coordinator/pooled_calls.h).
inline constexpr int kCoordinatorReaderThreads = 4;
// The agent serves only the coordinator it registered with (its policy and
// pin), so it bounds the server alone.
inline constexpr ServerCallLimits kAgentCallLimits{
    .max_sync_threads = 16,
    .max_streams_per_connection = 100,
    .memory_bytes = int64_t{64} << 20};

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
