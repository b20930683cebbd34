// fabricpulse-agent: one per node; spawns and supervises the workers and
// serves AgentService to the coordinator.
#include <stdlib.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <random>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "daemon/agent/agent_config.h"
#include "daemon/agent/agent_metrics.h"
#include "daemon/agent/agent_service.h"
#include "daemon/agent/backend_selection.h"
#include "daemon/agent/gpu_busy_probe.h"
#include "daemon/agent/registration.h"
#include "daemon/agent/worker_supervisor.h"
#include "daemon/common/address.h"
#include "daemon/common/metrics_server.h"
#include "daemon/common/port_file.h"
#include "daemon/common/process.h"
#include "daemon/common/shutdown_signal.h"
#include "daemon/common/worker_backends.h"
#include "daemon/core/log.h"
#include "daemon/nvml/nvml_library.h"
#include "daemon/nvml/visible_gpus.h"

namespace fabricpulse::agent {
namespace {

int Fail(const std::string& message) {
  std::fprintf(stderr, "fabricpulse-agent: %s\n", message.c_str());
  return 2;
}

std::string RandomId() {
  std::random_device rd;
  return absl::StrCat(absl::Hex(rd(), absl::kZeroPad8));
}

int Run(const AgentConfig& config) {
  const std::string worker_binary =
      common::ExecutableDir() + "/fabricpulse-worker";
  // NVML (no CUDA here) counts the GPUs, then feeds the busy-GPU probe.
  absl::StatusOr<std::unique_ptr<nvml::Nvml>> nvml = nvml::OpenNvml();
  BackendEnvironment environment;
  environment.nvml = nvml.ok() ? nvml->get() : nullptr;
  environment.cuda_visible_devices = nvml::CudaVisibleDevicesFromEnv();
  environment.worker_backends = [&worker_binary] {
    return common::QueryWorkerBackends(worker_binary);
  };
  auto selection = SelectBackend(config, environment);
  if (!selection.ok()) return Fail(std::string(selection.status().message()));
  const std::string backend = selection->backend;
  const std::vector<int>& gpus = selection->gpus;

  char dir_template[] = "/tmp/fabricpulse-agent-XXXXXX";
  if (mkdtemp(dir_template) == nullptr) {
    return Fail("cannot create a socket directory under /tmp");
  }
  const std::string socket_dir = dir_template;
  auto listen = common::ParseHostPort(config.listen, "--listen");
  const std::string host = common::AdvertisedHost(listen->host);

  auto metrics = common::MetricsServer::Start(config.metrics_listen, "agent");
  if (!metrics.ok()) return Fail(std::string(metrics.status().message()));
  AgentMetrics agent_metrics((*metrics)->registry(), config.node_name);
  agent_metrics.SetWorkers(static_cast<int>(gpus.size()), 0);

  SupervisorOptions sup;
  sup.worker_binary = worker_binary;
  sup.socket_dir = socket_dir;
  sup.backend = backend;
  sup.host = host;
  sup.gpus = gpus;
  sup.boot_id = RandomId();
  sup.on_restart = [&agent_metrics](int) { agent_metrics.WorkerRestarted(); };
  // Set before the supervisor starts, cleared after it stops.
  std::atomic<Registration*> registration_ptr{nullptr};
  // Set before the supervisor starts; the supervisor outlives its monitors.
  std::atomic<WorkerSupervisor*> supervisor_ptr{nullptr};
  // Monitors report changes concurrently: taking the snapshot and setting
  // the gauges under one lock keeps an older snapshot from being set last.
  absl::Mutex workers_gauge_mu;
  sup.on_change = [&registration_ptr, &supervisor_ptr, &workers_gauge_mu,
                   &agent_metrics](int) {
    if (WorkerSupervisor* s = supervisor_ptr.load()) {
      absl::MutexLock lock(&workers_gauge_mu);
      const std::vector<v1::WorkerInfo> workers = s->Snapshot();
      int ready = 0;
      for (const v1::WorkerInfo& w : workers) ready += w.ready() ? 1 : 0;
      agent_metrics.SetWorkers(static_cast<int>(workers.size()), ready);
    }
    if (Registration* r = registration_ptr.load()) r->Nudge();
  };
  WorkerSupervisor supervisor(sup);
  supervisor_ptr = &supervisor;
  // The busy-GPU check (NVML): GPU ranks only, off without a driver.
  GpuBusyProbeOptions probe_options;
  probe_options.workers = [&supervisor] { return supervisor.Snapshot(); };
  probe_options.metrics = &agent_metrics;
  probe_options.on_change = [&registration_ptr] {
    if (Registration* r = registration_ptr.load()) r->Nudge();
  };
  std::unique_ptr<GpuBusyProbe> gpu_probe =
      MakeGpuBusyProbe(gpus, std::move(nvml), std::move(probe_options));

  int port = 0;
  AgentIdentity identity;
  identity.node_name = config.node_name;
  identity.backend = backend;
  identity.backend_version = backend;  // until a worker reports its version
  CoordinatorContact contact;
  AgentServiceImpl service(identity, &supervisor, &agent_metrics, &contact,
                           gpu_probe.get());
  grpc::ServerBuilder builder;
  builder.AddListeningPort(config.listen, grpc::InsecureServerCredentials(),
                           &port);
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server || port == 0) {
    return Fail(absl::StrCat("--listen: cannot listen on ", config.listen));
  }
  service.SetAddress(common::JoinHostPort(host, port));

  Registration registration(
      config.coordinator, [&service] { return service.Info(); }, &contact);
  registration_ptr = &registration;
  supervisor.Start();
  if (!config.port_file.empty()) {
    absl::Status written = common::WritePortFile(
        config.port_file,
        {common::JoinHostPort(listen->host, port), (*metrics)->address()});
    if (!written.ok()) return Fail(std::string(written.message()));
  }
  if (gpu_probe) gpu_probe->Start();
  registration.Start();
  FP_LOG_INFO(absl::StrCat("node ", config.node_name, " serving on ",
                           common::JoinHostPort(host, port), ", ", gpus.size(),
                           " ", backend, " rank(s)"));

  int sig = common::WaitForShutdownSignal();
  FP_LOG_INFO(absl::StrCat("signal ", sig, ": shutting down"));
  registration.Stop();
  FP_LOG_DEBUG("registration stopped");
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(3));
  FP_LOG_DEBUG("server stopped");
  if (gpu_probe) gpu_probe->Stop();
  supervisor.Stop();
  registration_ptr = nullptr;
  FP_LOG_DEBUG("workers stopped");
  std::error_code ec;
  std::filesystem::remove_all(socket_dir, ec);
  return 0;
}

}  // namespace
}  // namespace fabricpulse::agent

int main(int argc, char** argv) {
  fabricpulse::common::BlockShutdownSignals();
  fabricpulse::agent::AgentConfig config;
  char hostname[256] = {0};
  gethostname(hostname, sizeof(hostname) - 1);
  config.node_name = hostname;
  CLI::App app{"fabricpulse-agent: runs one node's FabricPulse ranks"};
  app.add_option("--coordinator", config.coordinator,
                 "Coordinator gRPC address HOST:PORT")
      ->envname("FABRICPULSE_COORDINATOR");
  app.add_option("--listen", config.listen,
                 "gRPC listen address HOST:PORT (:0 picks a free port)")
      ->envname("FABRICPULSE_LISTEN")
      ->capture_default_str();
  app.add_option("--metrics-listen", config.metrics_listen,
                 "Prometheus /metrics address HOST:PORT")
      ->envname("FABRICPULSE_METRICS_LISTEN")
      ->capture_default_str();
  app.add_option("--node-name", config.node_name,
                 "This node's name (default: hostname)")
      ->envname("FABRICPULSE_NODE_NAME")
      ->capture_default_str();
  app.add_option("--backend", config.backend, "auto, nccl or gloo")
      ->envname("FABRICPULSE_BACKEND")
      ->capture_default_str();
  app.add_option("--ranks", config.ranks, "CPU ranks to run (gloo; default 1)")
      ->envname("FABRICPULSE_RANKS");
  app.add_option("--gpus", config.gpus,
                 "GPU indices to run, e.g. 0,1 (nccl); NVML (nvidia-smi) "
                 "order, which the busy-GPU check also uses")
      ->envname("FABRICPULSE_GPUS");
  app.add_option("--port-file", config.port_file,
                 "Write grpc=HOST:PORT and metrics=HOST:PORT here once "
                 "listening")
      ->envname("FABRICPULSE_PORT_FILE");
  CLI11_PARSE(app, argc, argv);
  absl::Status valid = config.Validate();
  if (!valid.ok()) {
    std::fprintf(stderr, "fabricpulse-agent: %s\n",
                 std::string(valid.message()).c_str());
    return 2;
  }
  fabricpulse::core::SetLogTag(absl::StrCat("agent ", config.node_name));
  return fabricpulse::agent::Run(config);
}
