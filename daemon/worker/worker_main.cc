// fabricpulse-worker: one rank, started and supervised by its agent.
#include <grpcpp/grpcpp.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "daemon/common/shutdown_signal.h"
#include "daemon/common/worker_backends.h"
#include "daemon/core/log.h"
#include "daemon/worker/backend_factory.h"
#include "daemon/worker/worker_service.h"

namespace {

struct WorkerConfig {
  std::string socket;
  fabricpulse::worker::BackendChoice backend;
  int local_index = 0;
};

}  // namespace

int main(int argc, char** argv) {
  using namespace fabricpulse;
  common::BlockShutdownSignals();
  WorkerConfig config;
  CLI::App app{"fabricpulse-worker: one rank of a FabricPulse agent"};
  // Runs before the required options are checked: the agent and the CLI
  // ask this instead of linking NCCL themselves.
  app.add_flag_callback(
      common::kWorkerBackendsFlag,
      [] {
        std::printf("%s\n",
                    absl::StrJoin(worker::BuiltInBackends(), " ").c_str());
        throw CLI::Success();
      },
      "Print the backends built in (e.g. \"gloo nccl\") and exit");
  app.add_option("--socket", config.socket, "Unix socket path to serve on")
      ->required();
  app.add_option("--backend", config.backend.name, "gloo or nccl")->required();
  app.add_option("--host", config.backend.host,
                 "Address the Gloo transport binds to");
  app.add_option("--gpu", config.backend.gpu, "GPU index (nccl)");
  app.add_option("--local-index", config.local_index, "Index on the agent");
  app.add_option("--mem-fraction", config.backend.mem_fraction,
                 "Bound on GPU buffers as a fraction of free memory")
      ->envname("FABRICPULSE_MEM_FRACTION")
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  core::SetLogTag(absl::StrCat("worker ", config.local_index));

  auto backend = worker::MakeBackend(config.backend);
  if (!backend.ok()) {
    std::fprintf(stderr, "fabricpulse-worker: %s\n",
                 std::string(backend.status().message()).c_str());
    return 2;
  }
  worker::WorkerServiceImpl service(std::move(*backend));
  unlink(config.socket.c_str());
  grpc::ServerBuilder builder;
  builder.AddListeningPort(absl::StrCat("unix:", config.socket),
                           grpc::InsecureServerCredentials());
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server) {
    std::fprintf(stderr, "fabricpulse-worker: cannot listen on unix:%s\n",
                 config.socket.c_str());
    return 1;
  }
  FP_LOG_DEBUG(absl::StrCat("serving on unix:", config.socket));
  common::WaitForShutdownSignal();
  FP_LOG_DEBUG("shutting down");
  // Streams in flight get a bounded time to finish, then are cancelled.
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
  unlink(config.socket.c_str());
  FP_LOG_DEBUG("server stopped");
  return 0;
}
