// fabricpulse-coordinator: membership, rendezvous, sweeps, metrics.
#include <malloc.h>

#include <CLI/CLI.hpp>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "daemon/common/grpc_cpu_cap.h"
#include "daemon/common/grpc_log.h"
#include "daemon/common/shared_flags.h"
#include "daemon/common/shutdown_signal.h"
#include "daemon/coordinator/coordinator_server.h"
#include "daemon/core/log.h"
#include "daemon/core/version.h"

int main(int argc, char** argv) {
  // gRPC's callback threads each get a malloc arena of their own, and at
  // 1,024 agents the freed memory of a sweep's fan-out stayed spread over
  // them: peak RSS 250 MiB, against 139 MiB with two arenas
  // (tests/scale/scale_bench.sh, MALLOC_ARENA_MAX=2). Before any thread.
  mallopt(M_ARENA_MAX, 2);
  // From here a signal ends a stuck startup; see shutdown_signal.h.
  fabricpulse::common::ShutdownSignals signals("fabricpulse-coordinator");
  fabricpulse::coordinator::CoordinatorDaemonConfig config;
  CLI::App app{"fabricpulse-coordinator: runs FabricPulse sweeps"};
  app.set_version_flag(
      "--version", fabricpulse::core::VersionLine("fabricpulse-coordinator"),
      "Print the version and exit");
  fabricpulse::common::AddListenFlags(app, config.listen,
                                      config.metrics_listen);
  app.add_option("--state-dir", config.state_dir,
                 "Directory for the coordinator's state")
      ->envname("FABRICPULSE_STATE_DIR")
      ->required();
  app.add_option("--config", config.config,
                 "YAML file with plans and cron schedules")
      ->envname("FABRICPULSE_CONFIG");
  app.add_option("--port-file", config.port_file,
                 "Write grpc=HOST:PORT and metrics=HOST:PORT (and "
                 "health=HOST:PORT) here once listening")
      ->envname("FABRICPULSE_PORT_FILE");
  fabricpulse::common::AddTlsFlags(app, config.tls);
  app.add_option("--authz-policy", config.authz_policy,
                 "gRPC authorization-policy JSON replacing the built-in roles "
                 "(re-read when it changes; see "
                 "deploy/config/authz-policy.json)")
      ->envname("FABRICPULSE_AUTHZ_POLICY");
  fabricpulse::common::AddEndpointFlags(app, config.web_config_file,
                                        config.health_listen);
  CLI11_PARSE(app, argc, argv);
  if (const std::string bad = fabricpulse::common::GrpcCpusEnvError();
      !bad.empty()) {
    std::fprintf(stderr, "fabricpulse-coordinator: %s\n", bad.c_str());
    return 2;
  }
  fabricpulse::core::SetLogTag("coordinator");
  fabricpulse::common::RouteGrpcLogs(fabricpulse::core::LogLevel::kWarning);
  auto server = fabricpulse::coordinator::CoordinatorServer::Start(config);
  if (!server.ok()) {
    std::fprintf(stderr, "fabricpulse-coordinator: %s\n",
                 std::string(server.status().message()).c_str());
    return 2;
  }
  const int sig = signals.WaitForShutdown();
  FP_LOG_INFO(absl::StrCat("signal ", sig, ": shutting down"));
  (*server)->Shutdown(absl::Seconds(5));
  FP_LOG_DEBUG("exiting");
  return 0;
}
