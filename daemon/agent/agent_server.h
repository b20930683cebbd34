// The agent as one object: backend choice, metrics endpoint, worker
// supervisor, busy-GPU probe, AgentService, registration, started together
// and shut down in order. agent_main.cc only parses flags and waits for a
// signal.
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "daemon/agent/agent_config.h"
#include "daemon/agent/agent_metrics.h"
#include "daemon/agent/agent_service.h"
#include "daemon/agent/coordinator_contact.h"
#include "daemon/agent/free_memory.h"
#include "daemon/agent/gpu_busy_probe.h"
#include "daemon/agent/machine_topology.h"
#include "daemon/agent/registration.h"
#include "daemon/agent/run_dir.h"
#include "daemon/agent/verdict_publisher.h"
#include "daemon/agent/worker_supervisor.h"
#include "daemon/common/health_endpoint.h"
#include "daemon/common/metrics_server.h"
#include "daemon/security/credentials.h"
#include "grpcpp/grpcpp.h"

namespace fabricpulse::agent {

// Thread-safe.
class AgentServer {
 public:
  // Validates `config`, chooses the backend (NVML counts the GPUs; the
  // worker binary says whether it has NCCL), starts /metrics, the workers,
  // the busy-GPU probe, the gRPC server and registration, and writes the
  // port file. Errors: INVALID_ARGUMENT a bad flag; FAILED_PRECONDITION the
  // backend cannot run here (naming why), the run folder is refused, or
  // another agent of this node name holds it (RunDir::Acquire);
  // UNAVAILABLE an address cannot be bound; INTERNAL the run folder or
  // port file cannot be written.
  static absl::StatusOr<std::unique_ptr<AgentServer>> Start(
      const AgentConfig& config);
  ~AgentServer();  // Shutdown(3 s)

  // Stops registering, shuts the gRPC server down (calls still open at
  // `deadline` are cancelled), stops the probe and the workers, removes the
  // run folder. Idempotent.
  void Shutdown(absl::Duration deadline);

 private:
  AgentServer() = default;
  // A worker became ready or died: the workers gauge, and a heartbeat now.
  void WorkersChanged();

  absl::Mutex shutdown_mu_;
  bool shut_down_ ABSL_GUARDED_BY(shutdown_mu_) = false;
  std::shared_ptr<security::Credentials> credentials_;
  std::unique_ptr<RunDir> run_dir_;
  std::unique_ptr<common::MetricsServer> metrics_;
  std::unique_ptr<AgentMetrics> agent_metrics_;
  // Set before the supervisor starts, cleared after it stops.
  std::atomic<Registration*> registration_ptr_{nullptr};
  std::atomic<WorkerSupervisor*> supervisor_ptr_{nullptr};
  // Monitors report changes concurrently: taking the snapshot and setting
  // the gauges under one lock keeps an older snapshot from being set last.
  absl::Mutex workers_gauge_mu_;
  std::unique_ptr<WorkerSupervisor> supervisor_;
  std::unique_ptr<GpuBusyProbe> gpu_probe_;
  std::unique_ptr<FreeMemoryReader> free_memory_;
  std::unique_ptr<MachineTopology> topology_;
  CoordinatorContact contact_;
  std::unique_ptr<AgentServiceImpl> service_;
  // Before server_: its service is registered there and must outlive it.
  std::unique_ptr<common::HealthEndpoint> health_;
  std::unique_ptr<grpc::Server> server_;
  // Before registration_: its thread calls it, and is stopped first.
  std::unique_ptr<VerdictPublisher> verdicts_;
  std::unique_ptr<Registration> registration_;
};

}  // namespace fabricpulse::agent
