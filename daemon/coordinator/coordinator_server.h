// The coordinator as one object: history, metrics endpoint, orchestrator,
// gRPC server, scheduler and housekeeping, started together and shut down in
// order. coordinator_main.cc only parses flags and waits for a signal.
#pragma once

#include <memory>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "daemon/common/health_endpoint.h"
#include "daemon/common/metrics_server.h"
#include "daemon/common/state_dir_lock.h"
#include "daemon/coordinator/auto_isolator.h"
#include "daemon/coordinator/campaign_runner.h"
#include "daemon/coordinator/coordinator_daemon_config.h"
#include "daemon/coordinator/coordinator_metrics.h"
#include "daemon/coordinator/coordinator_service.h"
#include "daemon/coordinator/grpc_agent_client.h"
#include "daemon/coordinator/orchestrator_schedule_target.h"
#include "daemon/coordinator/scheduler.h"
#include "daemon/coordinator/store/history_retention.h"
#include "daemon/coordinator/store/history_store.h"
#include "daemon/coordinator/sweep_orchestrator.h"
#include "daemon/security/credentials.h"
#include "daemon/security/policy_source.h"
#include "grpcpp/grpcpp.h"

namespace fabricpulse::coordinator {

// Thread-safe.
class CoordinatorServer {
 public:
  // Validates `config`, opens the history (sweeps left running by the last
  // coordinator are marked interrupted), loads plans and schedules, starts
  // /metrics, the gRPC server, the scheduler and housekeeping, and writes
  // the port file. Errors: INVALID_ARGUMENT a bad flag or config file
  // (naming it); FAILED_PRECONDITION another coordinator holds the state
  // directory (naming it and that one's pid); UNAVAILABLE an address cannot
  // be bound; INTERNAL the state directory or history cannot be used.
  static absl::StatusOr<std::unique_ptr<CoordinatorServer>> Start(
      const CoordinatorDaemonConfig& config);
  ~CoordinatorServer();  // Shutdown(5 s)

  // Stops firing schedules, aborts running sweeps, ends every rendezvous
  // wait (UNAVAILABLE), waits for the scheduler, then shuts the gRPC server
  // down, cancelling calls still open at `deadline`. Idempotent.
  void Shutdown(absl::Duration deadline);

  const std::string& grpc_address() const { return grpc_address_; }
  const std::string& metrics_address() const { return metrics_->address(); }
  // The --health-listen address bound; "" when there is none.
  const std::string& health_address() const { return health_->address(); }

 private:
  CoordinatorServer() = default;

  // First: released last, after everything that uses the directory.
  std::unique_ptr<common::StateDirLock> state_lock_;
  absl::Mutex shutdown_mu_;
  bool shut_down_ ABSL_GUARDED_BY(shutdown_mu_) = false;
  std::unique_ptr<HistoryStore> history_;
  std::unique_ptr<HistoryRetention> retention_;
  std::unique_ptr<common::MetricsServer> metrics_;
  std::unique_ptr<CoordinatorMetrics> coordinator_metrics_;
  std::shared_ptr<security::Credentials> credentials_;
  std::shared_ptr<security::PolicySource> policy_;
  std::unique_ptr<GrpcAgentClients> agent_clients_;
  // The --config file as loaded (ListPlans answers from it).
  core::CoordinatorConfig config_;
  std::unique_ptr<SweepOrchestrator> orchestrator_;
  // Runs sweeps through orchestrator_: declared after it, so destroyed
  // first (Shutdown stops it before that).
  std::unique_ptr<AutoIsolator> isolator_;
  // Likewise: campaign plans' group sweeps.
  std::unique_ptr<CampaignRunner> campaigns_;
  // Before service_, which reads their state.
  std::unique_ptr<OrchestratorScheduleTarget> schedule_target_;
  std::unique_ptr<Scheduler> scheduler_;
  std::unique_ptr<CoordinatorServiceImpl> service_;
  // Before server_: its service is registered there and must outlive it.
  std::unique_ptr<common::HealthEndpoint> health_;
  std::unique_ptr<grpc::Server> server_;
  std::string grpc_address_;
  absl::Notification stop_housekeeping_;
  std::thread housekeeping_;
};

}  // namespace fabricpulse::coordinator
