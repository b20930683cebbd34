#include "daemon/agent/agent_server.h"

#include <stdlib.h>

#include <filesystem>
#include <random>

#include "absl/strings/str_cat.h"
#include "daemon/agent/backend_selection.h"
#include "daemon/common/address.h"
#include "daemon/common/grpc_server.h"
#include "daemon/common/port_file.h"
#include "daemon/common/process.h"
#include "daemon/common/worker_backends.h"
#include "daemon/core/limits.h"
#include "daemon/core/log.h"
#include "daemon/nvml/nvml_library.h"
#include "daemon/nvml/visible_gpus.h"

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
  // NVML (no CUDA here) counts the GPUs, then feeds the busy-GPU probe.
  absl::StatusOr<std::unique_ptr<nvml::Nvml>> nvml = nvml::OpenNvml();
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

  std::unique_ptr<AgentServer> s(new AgentServer);
  char dir_template[] = "/tmp/fabricpulse-agent-XXXXXX";
  if (mkdtemp(dir_template) == nullptr) {
    return absl::InternalError("cannot create a socket directory under /tmp");
  }
  s->socket_dir_ = dir_template;
  const std::string host = common::AdvertisedHost(listen->host);
  auto metrics = common::MetricsServer::Start(config.metrics_listen, "agent");
  if (!metrics.ok()) return metrics.status();
  s->metrics_ = std::move(*metrics);
  s->agent_metrics_ =
      std::make_unique<AgentMetrics>(s->metrics_->registry(), config.node_name);
  s->agent_metrics_->SetWorkers(static_cast<int>(gpus.size()), 0);

  AgentServer* self = s.get();
  SupervisorOptions sup;
  sup.worker_binary = worker_binary;
  sup.socket_dir = s->socket_dir_;
  sup.backend = backend;
  sup.host = host;
  sup.gpus = gpus;
  sup.boot_id = RandomId();
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
  s->gpu_probe_ =
      MakeGpuBusyProbe(gpus, std::move(nvml), std::move(probe_options));

  AgentIdentity identity;
  identity.node_name = config.node_name;
  identity.backend = backend;
  identity.backend_version = backend;  // until a worker reports its version
  s->service_ = std::make_unique<AgentServiceImpl>(
      identity, s->supervisor_.get(), s->agent_metrics_.get(), &s->contact_,
      s->gpu_probe_.get());
  auto listening = common::StartGrpcServer(config.listen, s->service_.get(),
                                           core::kAgentMaxRequestBytes);
  if (!listening.ok()) return listening.status();
  s->server_ = std::move(listening->server);
  const int port = listening->port;
  s->service_->SetAddress(common::JoinHostPort(host, port));

  s->registration_ = std::make_unique<Registration>(
      config.coordinator, [self] { return self->service_->Info(); },
      &s->contact_);
  s->registration_ptr_ = s->registration_.get();
  s->supervisor_->Start();
  if (!config.port_file.empty()) {
    absl::Status written = common::WritePortFile(
        config.port_file,
        {common::JoinHostPort(listen->host, port), s->metrics_->address()});
    if (!written.ok()) return written;
  }
  if (s->gpu_probe_) s->gpu_probe_->Start();
  s->registration_->Start();
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
  if (registration_) registration_->Stop();
  FP_LOG_DEBUG("registration stopped");
  if (server_) server_->Shutdown(absl::ToChronoTime(absl::Now() + deadline));
  FP_LOG_DEBUG("server stopped");
  if (gpu_probe_) gpu_probe_->Stop();
  if (supervisor_) supervisor_->Stop();
  registration_ptr_ = nullptr;
  FP_LOG_DEBUG("workers stopped");
  if (!socket_dir_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(socket_dir_, ec);
  }
}

AgentServer::~AgentServer() { Shutdown(absl::Seconds(3)); }

}  // namespace fabricpulse::agent
