#include "daemon/agent/agent_server.h"

#include <algorithm>
#include <random>

#include "absl/strings/str_cat.h"
#include "daemon/agent/backend_selection.h"
#include "daemon/common/address.h"
#include "daemon/common/grpc_server.h"
#include "daemon/common/port_file.h"
#include "daemon/common/process.h"
#include "daemon/common/worker_backends.h"
#include "daemon/core/agent_labels.h"
#include "daemon/core/limits.h"
#include "daemon/core/log.h"
#include "daemon/nvml/nvml_library.h"
#include "daemon/nvml/visible_gpus.h"
#include "daemon/security/authorizer.h"

namespace fabricpulse::agent {
namespace {

std::string RandomId() {
  std::random_device rd;
  return absl::StrCat(absl::Hex(rd(), absl::kZeroPad8));
}

}  // namespace

void AgentServer::WorkersChanged() {
  if (WorkerSupervisor* s = supervisor_ptr_.load()) {
    absl::MutexLock lock(&workers_gauge_mu_);
    const std::vector<v1::WorkerInfo> workers = s->Snapshot();
    int ready = 0;
    for (const v1::WorkerInfo& w : workers) ready += w.ready() ? 1 : 0;
    agent_metrics_->SetWorkers(static_cast<int>(workers.size()), ready);
  }
  if (Registration* r = registration_ptr_.load()) r->Nudge();
}

absl::StatusOr<std::unique_ptr<AgentServer>> AgentServer::Start(
    const AgentConfig& config) {
  absl::Status valid = config.Validate();
  if (!valid.ok()) return valid;
  auto listen = common::ParseHostPort(config.listen, "--listen");
  if (!listen.ok()) return listen.status();
  const std::string worker_binary =
      common::ExecutableDir() + "/fabricpulse-worker";
  // NVML (no CUDA here) counts the GPUs, then feeds the busy-GPU probe and
  // the free-memory figures.
  absl::StatusOr<std::shared_ptr<nvml::Nvml>> nvml = nvml::OpenNvml();
  BackendEnvironment environment;
  environment.nvml = nvml.ok() ? nvml->get() : nullptr;
  environment.cuda_visible_devices = nvml::CudaVisibleDevicesFromEnv();
  environment.worker_backends = [&worker_binary] {
    return common::QueryWorkerBackends(worker_binary);
  };
  auto selection = SelectBackend(config, environment);
  if (!selection.ok()) return selection.status();
  const std::string backend = selection->backend;
  const std::vector<int> gpus = selection->gpus;

  auto credentials = security::Credentials::Create(config.tls);
  if (!credentials.ok()) return credentials.status();
  (*credentials)->WarnIfInsecure();
  // An agent acts only as the node its certificate names.
  absl::Status identity_ok = (*credentials)
                                 ->RequireSelf(security::Role::kAgent,
                                               config.node_name, "--node-name");
  if (!identity_ok.ok()) return identity_ok;

  std::unique_ptr<AgentServer> s(new AgentServer);
  s->credentials_ = *std::move(credentials);
  const std::string boot_id = RandomId();
  // Before any port is bound: a second agent of this node is refused here.
  RunDirOptions run_dir;
  run_dir.base = config.run_dir;
  run_dir.node_name = config.node_name;
  run_dir.longest_entry = WorkerSupervisor::SocketName(
      std::max(0, static_cast<int>(gpus.size()) - 1), boot_id);
  auto acquired = RunDir::Acquire(run_dir);
  if (!acquired.ok()) return acquired.status();
  s->run_dir_ = std::move(*acquired);
  const std::string host = common::AdvertisedHost(listen->host);
  auto metrics = common::MetricsServer::Start(config.metrics_listen, "agent",
                                              config.web_config_file);
  if (!metrics.ok()) return metrics.status();
  s->metrics_ = std::move(*metrics);
  s->agent_metrics_ =
      std::make_unique<AgentMetrics>(s->metrics_->registry(), config.node_name);
  s->agent_metrics_->SetWorkers(static_cast<int>(gpus.size()), 0);

  AgentServer* self = s.get();
  SupervisorOptions sup;
  sup.worker_binary = worker_binary;
  sup.socket_dir = s->run_dir_->path();
  sup.backend = backend;
  sup.host = host;
  sup.gpus = gpus;
  sup.boot_id = boot_id;
  sup.worker_tls = config.tls;
  sup.worker_resources = config.worker_resources;
  sup.on_restart = [self](int) { self->agent_metrics_->WorkerRestarted(); };
  sup.on_abort_kill = [self](int) {
    self->agent_metrics_->WorkerKilledOnRequestedAbort();
  };
  sup.on_change = [self](int) { self->WorkersChanged(); };
  s->supervisor_ = std::make_unique<WorkerSupervisor>(sup);
  s->supervisor_ptr_ = s->supervisor_.get();
  // The busy-GPU check (NVML): GPU ranks only, off without a driver.
  GpuBusyProbeOptions probe_options;
  probe_options.workers = [self] { return self->supervisor_->Snapshot(); };
  probe_options.metrics = s->agent_metrics_.get();
  probe_options.on_change = [self] {
    if (Registration* r = self->registration_ptr_.load()) r->Nudge();
  };
  s->free_memory_ = std::make_unique<FreeMemoryReader>(
      nvml.ok() ? *nvml : std::shared_ptr<nvml::Nvml>());
  // GPU facts and NICs: read here, then again every --topology-refresh.
  MachineTopology::Options topology;
  if (nvml.ok()) {
    topology.read_gpus = [nvml = *nvml, gpus](bool quiet) {
      return ReadGpuFacts(*nvml, gpus, quiet);
    };
  }
  topology.sys_class_net = config.sys_class_net;
  topology.metrics = s->agent_metrics_.get();
  topology.refresh = config.TopologyRefresh();
  s->topology_ = std::make_unique<MachineTopology>(std::move(topology));
  s->gpu_probe_ =
      MakeGpuBusyProbe(gpus, std::move(nvml), std::move(probe_options));

  AgentIdentity identity;
  identity.node_name = config.node_name;
  identity.backend = backend;
  identity.backend_version = backend;  // until a worker reports its version
  identity.coordinator = config.coordinator;
  // Validate() parsed them already.
  identity.labels = *config.Labels();
  identity.release_idle_after =
      config.worker_resources.Parse()->release_idle_after;
  s->service_ = std::make_unique<AgentServiceImpl>(
      identity, s->supervisor_.get(), s->agent_metrics_.get(), &s->contact_,
      s->gpu_probe_.get(), s->free_memory_.get(), core::RealClock::Get(),
      s->topology_.get());
  auto health = common::HealthEndpoint::Start(
      config.health_listen, {v1::AgentService::service_full_name()});
  if (!health.ok()) return health.status();
  s->health_ = std::move(*health);
  // The agent obeys the coordinator it registered with, and no other
  // coordinator identity of the CA.
  auto coordinator_pin =
      std::make_shared<security::PeerPin>(security::Role::kCoordinator);
  auto listening = common::StartGrpcServer(
      config.listen, s->service_.get(),
      s->credentials_->Server(std::make_shared<security::Authorizer>(
          config.tls.trust_domain,
          security::PolicySource::BuiltIn(security::Service::kAgent,
                                          config.tls.trust_domain),
          coordinator_pin)),
      core::kAgentMaxRequestBytes, common::kAgentCallLimits,
      s->health_->service());
  if (!listening.ok()) return listening.status();
  s->server_ = std::move(listening->server);
  const int port = listening->port;
  s->service_->SetAddress(common::JoinHostPort(host, port));

  s->registration_ = std::make_unique<Registration>(
      NewGrpcCoordinatorClient(config.coordinator, s->credentials_,
                               coordinator_pin),
      [self] { return self->service_->Info(); },
      [self](v1::HeartbeatRequest& request) {
        self->service_->FillHeartbeat(request);
      },
      &s->contact_);
  if (!config.nfd_features_dir.empty() || !config.verdict_file.empty()) {
    auto publisher = VerdictPublisher::Create(
        {config.node_name, config.nfd_features_dir, config.verdict_file});
    if (!publisher.ok()) return publisher.status();
    s->verdicts_ = std::move(*publisher);
    s->registration_->SetExchangeObserver(
        [self](const v1::HeartbeatResponse* answer) {
          self->verdicts_->Observe(answer);
        });
  }
  // The NICs are read when someone looks: at each scrape (and in each full
  // description), not at heartbeats.
  s->metrics_->AddScrapeHook([self] { self->topology_->ExportNics(); });
  s->registration_ptr_ = s->registration_.get();
  s->supervisor_->Start();
  if (!config.port_file.empty()) {
    absl::Status written = common::WritePortFile(
        config.port_file, {common::JoinHostPort(listen->host, port),
                           s->metrics_->address(), s->health_->address()});
    if (!written.ok()) return written;
  }
  if (s->gpu_probe_) s->gpu_probe_->Start();
  s->registration_->Start();
  s->health_->SetServing();
  FP_LOG_INFO(absl::StrCat("node ", config.node_name, " serving on ",
                           common::JoinHostPort(host, port), ", ", gpus.size(),
                           " ", backend, " rank(s)"));
  return s;
}

void AgentServer::Shutdown(absl::Duration deadline) {
  {
    absl::MutexLock lock(&shutdown_mu_);
    if (shut_down_) return;
    shut_down_ = true;
  }
  // Probes see NOT_SERVING from the first moment of the shutdown.
  if (health_) health_->NotServing();
  if (registration_) registration_->Stop();
  if (verdicts_) verdicts_->Stop();
  FP_LOG_DEBUG("registration stopped");
  // Scrapes may go on until the process ends; what the hook uses goes with
  // this object.
  if (metrics_) metrics_->ClearScrapeHooks();
  if (server_) server_->Shutdown(absl::ToChronoTime(absl::Now() + deadline));
  FP_LOG_DEBUG("server stopped");
  if (gpu_probe_) gpu_probe_->Stop();
  if (supervisor_) supervisor_->Stop();
  registration_ptr_ = nullptr;
  FP_LOG_DEBUG("workers stopped");
  if (run_dir_) run_dir_->Remove();
  if (health_) health_->Stop(absl::Seconds(1));
}

AgentServer::~AgentServer() { Shutdown(absl::Seconds(3)); }

}  // namespace fabricpulse::agent
