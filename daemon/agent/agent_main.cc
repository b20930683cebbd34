// fabricpulse-agent: one per node; spawns and supervises the workers and
// serves AgentService to the coordinator.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "daemon/agent/agent_config.h"
#include "daemon/agent/agent_flags.h"
#include "daemon/agent/agent_server.h"
#include "daemon/common/grpc_cpu_cap.h"
#include "daemon/common/grpc_log.h"
#include "daemon/common/shutdown_signal.h"
#include "daemon/core/log.h"
#include "daemon/core/version.h"

int main(int argc, char** argv) {
  // From here a signal ends a stuck startup; see shutdown_signal.h.
  fabricpulse::common::ShutdownSignals signals("fabricpulse-agent");
  fabricpulse::agent::AgentConfig config;
  char hostname[256] = {0};
  gethostname(hostname, sizeof(hostname) - 1);
  config.node_name = hostname;
  CLI::App app{"fabricpulse-agent: runs one node's FabricPulse ranks"};
  app.set_version_flag("--version",
                       fabricpulse::core::VersionLine("fabricpulse-agent"),
                       "Print the version and exit");
  fabricpulse::agent::AddAgentFlags(app, config);
  CLI11_PARSE(app, argc, argv);
  if (const std::string bad = fabricpulse::common::GrpcCpusEnvError();
      !bad.empty()) {
    std::fprintf(stderr, "fabricpulse-agent: %s\n", bad.c_str());
    return 2;
  }
  fabricpulse::core::SetLogTag(absl::StrCat("agent ", config.node_name));
  fabricpulse::common::RouteGrpcLogs(fabricpulse::core::LogLevel::kWarning);
  auto server = fabricpulse::agent::AgentServer::Start(config);
  if (!server.ok()) {
    std::fprintf(stderr, "fabricpulse-agent: %s\n",
                 std::string(server.status().message()).c_str());
    return 2;
  }
  const int sig = signals.WaitForShutdown();
  FP_LOG_INFO(absl::StrCat("signal ", sig, ": shutting down"));
  (*server)->Shutdown(absl::Seconds(3));
  return 0;
}
