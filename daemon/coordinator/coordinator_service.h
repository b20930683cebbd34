// CoordinatorService: membership, rendezvous store, sweeps.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "absl/synchronization/mutex.h"
#include "daemon/common/channel_pool.h"
#include "daemon/coordinator/comm_naming.h"
#include "daemon/coordinator/coordinator_metrics.h"
#include "daemon/coordinator/membership.h"
#include "daemon/coordinator/rendezvous_store.h"
#include "daemon/coordinator/store/history_store.h"
#include "daemon/coordinator/sweep_runner.h"
#include "daemon/core/coordinator_config.h"
#include "fabricpulse/v1/coordinator.grpc.pb.h"

namespace fabricpulse::coordinator {

struct CoordinatorOptions {
  // Plans, schedules, baseline window and regression threshold.
  core::CoordinatorConfig config;
  absl::Duration heartbeat_interval = absl::Seconds(1);
  absl::Duration agent_lease = absl::Seconds(5);
};

// Thread-safe.
class CoordinatorServiceImpl final : public v1::CoordinatorService::Service {
 public:
  // `history` and `metrics` outlive the service.
  CoordinatorServiceImpl(CoordinatorOptions options, HistoryStore* history,
                         CoordinatorMetrics* metrics);

  // Runs a sweep to its end (the RunSweep RPC and the scheduler both come
  // here): plans it, reserves the members, records it in the history,
  // streams its events to `sink`, merges baselines and regressions into
  // each result, exports metrics. `trigger` is "cli" or "schedule:<name>".
  // Errors: see RunSweep in coordinator.proto.
  absl::Status ExecuteSweep(const v1::SweepRequest& request,
                            const std::string& trigger, const SweepSink& sink,
                            const std::function<bool()>& cancelled);

  // The agents a sweep of plan `plan` would run on (the plan's nodes, or
  // every live agent), as their last heartbeats describe them: no RPC, for
  // the scheduler's busy-GPU check. Errors: INVALID_ARGUMENT unknown plan or
  // node; UNAVAILABLE a named node is lost, or no live agent.
  absl::StatusOr<std::vector<v1::AgentInfo>> PlanMembers(
      const std::string& plan);

  // Address workers use to reach the rendezvous store.
  void SetAdvertisedAddress(const std::string& address);
  // Refreshes the agents-by-state gauge (membership marks lost agents
  // lazily: call it periodically so that a lost agent shows without a
  // client asking).
  void UpdateAgentMetrics();
  // Aborts every running sweep (shutdown). Idempotent.
  void AbortAll();

  grpc::Status Register(grpc::ServerContext* context,
                        const v1::RegisterRequest* request,
                        v1::RegisterResponse* response) override;
  grpc::Status Heartbeat(grpc::ServerContext* context,
                         const v1::HeartbeatRequest* request,
                         v1::HeartbeatResponse* response) override;
  grpc::Status ListAgents(grpc::ServerContext* context,
                          const v1::ListAgentsRequest* request,
                          v1::ListAgentsResponse* response) override;
  grpc::Status KvSet(grpc::ServerContext* context,
                     const v1::KvSetRequest* request,
                     v1::KvSetResponse* response) override;
  grpc::Status KvGet(grpc::ServerContext* context,
                     const v1::KvGetRequest* request,
                     v1::KvGetResponse* response) override;
  grpc::Status RunSweep(grpc::ServerContext* context,
                        const v1::SweepRequest* request,
                        grpc::ServerWriter<v1::SweepEvent>* writer) override;
  grpc::Status AbortSweep(grpc::ServerContext* context,
                          const v1::AbortSweepRequest* request,
                          v1::AbortSweepResponse* response) override;
  grpc::Status ListSweeps(grpc::ServerContext* context,
                          const v1::ListSweepsRequest* request,
                          v1::ListSweepsResponse* response) override;
  grpc::Status GetSweep(grpc::ServerContext* context,
                        const v1::GetSweepRequest* request,
                        v1::GetSweepResponse* response) override;
  grpc::Status Diagnose(grpc::ServerContext* context,
                        const v1::DiagnoseRequest* request,
                        v1::DiagnoseResponse* response) override;
  grpc::Status Stats(grpc::ServerContext* context,
                     const v1::CoordinatorStatsRequest* request,
                     v1::CoordinatorStatsResponse* response) override;

 private:
  // Validates the request and builds the plan (fresh agent descriptions,
  // ranks, comm id). Errors: see RunSweep in coordinator.proto.
  absl::StatusOr<SweepPlan> Plan(const v1::SweepRequest& request);
  // Fills baseline and regression of `result` from the history, and
  // records and exports it.
  void RecordResult(const SweepPlan& plan, v1::StepResult& result);

  const CoordinatorOptions options_;
  HistoryStore* const history_;
  CoordinatorMetrics* const metrics_;
  common::ChannelPool channels_;
  Membership membership_;
  RendezvousStore store_;
  CommNaming naming_;
  absl::Mutex mu_;
  std::map<std::string, std::shared_ptr<SweepRunner>> running_
      ABSL_GUARDED_BY(mu_);
  uint64_t sweeps_started_ ABSL_GUARDED_BY(mu_) = 0;
  std::string advertised_address_ ABSL_GUARDED_BY(mu_);
};

}  // namespace fabricpulse::coordinator
