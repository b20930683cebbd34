// WorkerClient over gRPC's callback API, on the channel the supervisor
// opened to the worker's Unix domain socket.
#pragma once

#include <memory>

#include "daemon/agent/worker_client.h"
#include "grpcpp/grpcpp.h"

namespace fabricpulse::agent {

std::shared_ptr<WorkerClient> NewGrpcWorkerClient(
    std::shared_ptr<grpc::Channel> channel);

}  // namespace fabricpulse::agent
