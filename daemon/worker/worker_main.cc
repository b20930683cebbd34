// fabricpulse-worker: one rank, started and supervised by its agent.
#include <CLI/CLI.hpp>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "daemon/common/grpc_log.h"
#include "daemon/common/shared_flags.h"
#include "daemon/common/shutdown_signal.h"
#include "daemon/common/worker_backends.h"
#include "daemon/common/worker_resources.h"
#include "daemon/core/log.h"
#include "daemon/core/version.h"
#include "daemon/worker/backend_factory.h"
#include "daemon/worker/fault_injection.h"
#include "daemon/worker/worker_server.h"

int main(int argc, char** argv) {
  using namespace fabricpulse;
  // From here a signal ends a stuck startup; see shutdown_signal.h.
  common::ShutdownSignals signals("fabricpulse-worker");
  worker::WorkerConfig config;
  CLI::App app{"fabricpulse-worker: one rank of a FabricPulse agent"};
  app.set_version_flag("--version", core::VersionLine("fabricpulse-worker"),
                       "Print the version and exit");
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
  app.add_option("--socket", config.socket,
                 "Unix socket path to serve on, in a 0700 folder; only the "
                 "parent process (the agent) is served")
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
  app.add_option("--fault-late-rank", config.fault_late_rank,
                 "Fault injection for tests: RANK:DURATION[:EVERY] makes the "
                 "rank enter each (every EVERY-th) timed op late (e.g. 3:5ms); "
                 "off when empty")
      ->envname(worker::kLateRankFaultEnv);
  common::AddWorkerResourceFlags(app, config.resources);
  common::AddTlsFlags(app, config.tls);
  CLI11_PARSE(app, argc, argv);
  core::SetLogTag(absl::StrCat("worker ", config.local_index));
  fabricpulse::common::RouteGrpcLogs(fabricpulse::core::LogLevel::kWarning);

  auto server = worker::WorkerServer::Start(config);
  if (!server.ok()) {
    std::fprintf(stderr, "fabricpulse-worker: %s\n",
                 std::string(server.status().message()).c_str());
    // 1: the socket could not be served; 2: bad flags or backend.
    return server.status().code() == absl::StatusCode::kUnavailable ? 1 : 2;
  }
  signals.WaitForShutdown();
  FP_LOG_DEBUG("shutting down");
  // Streams in flight get a bounded time to finish, then are cancelled.
  (*server)->Shutdown(absl::Seconds(2));
  return 0;
}
