// fabricpulse-coordinator: membership, rendezvous, sweeps, metrics.
#include <grpcpp/grpcpp.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <set>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "daemon/common/address.h"
#include "daemon/common/metrics_server.h"
#include "daemon/common/port_file.h"
#include "daemon/common/shutdown_signal.h"
#include "daemon/coordinator/coordinator_service.h"
#include "daemon/coordinator/scheduler.h"
#include "daemon/coordinator/service_schedule_target.h"
#include "daemon/core/coordinator_config.h"
#include "daemon/core/log.h"

namespace fabricpulse::coordinator {
namespace {

struct CoordinatorFlags {
  std::string listen = "0.0.0.0:0";
  std::string metrics_listen = "0.0.0.0:0";
  std::string state_dir;
  std::string config;
  std::string port_file;
};

int Fail(const std::string& message) {
  std::fprintf(stderr, "fabricpulse-coordinator: %s\n", message.c_str());
  return 2;
}

int Run(const CoordinatorFlags& config) {
  auto listen = common::ParseHostPort(config.listen, "--listen");
  if (!listen.ok()) return Fail(std::string(listen.status().message()));
  std::error_code ec;
  std::filesystem::create_directories(config.state_dir, ec);
  if (ec || !std::filesystem::is_directory(config.state_dir)) {
    return Fail(absl::StrCat("--state-dir: cannot create '", config.state_dir,
                             "': ", ec.message()));
  }
  CoordinatorOptions options;
  if (!config.config.empty()) {
    // A bad config stops the coordinator here, naming the line and field.
    auto loaded = core::LoadCoordinatorConfigFile(config.config);
    if (!loaded.ok()) {
      return Fail(absl::StrCat("--config ", config.config, ": ",
                               loaded.status().message()));
    }
    options.config = std::move(*loaded);
  }
  auto history = HistoryStore::Open(config.state_dir + "/history.db");
  if (!history.ok()) {
    return Fail(absl::StrCat("--state-dir: ", history.status().message()));
  }
  // Sweeps that were running when the last coordinator stopped will never
  // finish: they are marked interrupted, never lost.
  auto interrupted = (*history)->MarkInterrupted(absl::Now());
  if (interrupted.ok() && *interrupted > 0) {
    FP_LOG_WARNING(absl::StrCat(*interrupted,
                                " sweep(s) from before the restart marked "
                                "interrupted"));
  }
  auto metrics =
      common::MetricsServer::Start(config.metrics_listen, "coordinator");
  if (!metrics.ok()) return Fail(std::string(metrics.status().message()));
  CoordinatorMetrics coordinator_metrics((*metrics)->registry());
  // Each plan's last success survives a restart (newest first).
  auto recent = (*history)->ListSweeps(1000);
  if (recent.ok()) {
    std::set<std::string> seen;
    for (const SweepRecord& r : *recent) {
      if (r.status == kSweepSucceeded && seen.insert(r.plan).second) {
        coordinator_metrics.RestoreLastSuccess(r.plan, r.finished);
      }
    }
  }

  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(config.listen, grpc::InsecureServerCredentials(),
                           &port);
  CoordinatorServiceImpl service(options, history->get(), &coordinator_metrics);
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server || port == 0) {
    return Fail(absl::StrCat("--listen: cannot listen on ", config.listen));
  }
  // With :0 the port is known only once bound; no agent can have called
  // before this, since nobody knew the port.
  service.SetAdvertisedAddress(
      common::JoinHostPort(common::AdvertisedHost(listen->host), port));
  if (!config.port_file.empty()) {
    absl::Status written = common::WritePortFile(
        config.port_file,
        {common::JoinHostPort(listen->host, port), (*metrics)->address()});
    if (!written.ok()) return Fail(std::string(written.message()));
  }
  FP_LOG_INFO(absl::StrCat("listening on ", listen->host, ":", port,
                           ", metrics on ", (*metrics)->address()));
  // Cron schedules run their plans through the same path as the CLI,
  // held back while a member's GPU is busy (unless allowed).
  for (const core::ScheduleConfig& s : options.config.schedules) {
    coordinator_metrics.AddSchedule(s.name);
  }
  ServiceScheduleTarget schedule_target(&service, &coordinator_metrics);
  Scheduler scheduler(options.config.schedules, &schedule_target);
  scheduler.Start();
  // Housekeeping: lost agents are noticed lazily by membership; refresh
  // the agents gauge every second so a lost agent shows without a client.
  absl::Notification stop;
  std::thread housekeeping([&] {
    while (!stop.WaitForNotificationWithTimeout(absl::Seconds(1))) {
      service.UpdateAgentMetrics();
    }
  });
  int sig = common::WaitForShutdownSignal();
  stop.Notify();
  housekeeping.join();
  FP_LOG_INFO(absl::StrCat("signal ", sig, ": shutting down"));
  scheduler.RequestStop();
  service.AbortAll();
  scheduler.Stop();
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(5));
  FP_LOG_DEBUG("server stopped");
  return 0;
}

}  // namespace
}  // namespace fabricpulse::coordinator

int main(int argc, char** argv) {
  fabricpulse::common::BlockShutdownSignals();
  fabricpulse::coordinator::CoordinatorFlags config;
  CLI::App app{"fabricpulse-coordinator: runs FabricPulse sweeps"};
  app.add_option("--listen", config.listen,
                 "gRPC listen address HOST:PORT (:0 picks a free port)")
      ->envname("FABRICPULSE_LISTEN")
      ->capture_default_str();
  app.add_option("--metrics-listen", config.metrics_listen,
                 "Prometheus /metrics address HOST:PORT")
      ->envname("FABRICPULSE_METRICS_LISTEN")
      ->capture_default_str();
  app.add_option("--state-dir", config.state_dir,
                 "Directory for the coordinator's state")
      ->envname("FABRICPULSE_STATE_DIR")
      ->required();
  app.add_option("--config", config.config,
                 "YAML file with plans and cron schedules")
      ->envname("FABRICPULSE_CONFIG");
  app.add_option("--port-file", config.port_file,
                 "Write grpc=HOST:PORT and metrics=HOST:PORT here once "
                 "listening")
      ->envname("FABRICPULSE_PORT_FILE");
  CLI11_PARSE(app, argc, argv);
  fabricpulse::core::SetLogTag("coordinator");
  int code = fabricpulse::coordinator::Run(config);
  FP_LOG_DEBUG("exiting");
  return code;
}
