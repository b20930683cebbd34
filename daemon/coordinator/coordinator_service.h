// CoordinatorService: the gRPC adapter over the sweep orchestrator (sweeps,
// membership, diagnosis), the rendezvous store and the history. It converts
// requests and statuses and decides nothing itself.
#pragma once

#include "daemon/common/grpc_server.h"
#include "daemon/coordinator/campaign_runner.h"
#include "daemon/coordinator/coordinator_metrics.h"
#include "daemon/coordinator/pooled_calls.h"
#include "daemon/coordinator/rendezvous_store.h"
#include "daemon/coordinator/scheduler.h"
#include "daemon/coordinator/store/history_store.h"
#include "daemon/coordinator/sweep_orchestrator.h"
#include "daemon/coordinator/sweep_stream.h"
#include "daemon/core/coordinator_config.h"
#include "fabricpulse/v1/coordinator.grpc.pb.h"

namespace fabricpulse::coordinator {

// Thread-safe. RunSweep (SweepStream) and KvGet (KvGetReactor, whose wait
// holds no thread) are served on the callback API, and so are the agents'
// short calls, Heartbeat, Register and KvSet: each only takes a lock, so it
// is answered on the thread that read it rather than handed to a thread of
// the synchronous pool (whose two threads each woke about once a second
// for heartbeats while idle, tests/perf/idle_cpu.sh), and no reader can
// starve an agent of that pool. The other methods (the CLI's and the
// report's) are synchronous, each identity at most
// common::kCoordinatorCallsPerIdentity at once (RESOURCE_EXHAUSTED past it).
class CoordinatorServiceImpl final
    : public v1::CoordinatorService::CallbackService {
 public:
  // Everything it points to outlives it. `config`: the coordinator's
  // config file (null: none, no plans); `scheduler`: its schedules (null:
  // none).
  CoordinatorServiceImpl(SweepOrchestrator* orchestrator,
                         RendezvousStore* store, HistoryStore* history,
                         const core::CoordinatorConfig* config = nullptr,
                         Scheduler* scheduler = nullptr,
                         CampaignRunner* campaigns = nullptr);
  // Waits up to `timeout` for the threads of RunSweep calls to end (after
  // the server has shut down); whether they did.
  bool WaitForSweepThreads(absl::Duration timeout) {
    return sweep_threads_.WaitIdle(timeout);
  }

  grpc::ServerUnaryReactor* Register(grpc::CallbackServerContext* context,
                                     const v1::RegisterRequest* request,
                                     v1::RegisterResponse* response) override;
  grpc::ServerUnaryReactor* Heartbeat(grpc::CallbackServerContext* context,
                                      const v1::HeartbeatRequest* request,
                                      v1::HeartbeatResponse* response) override;
  grpc::ServerUnaryReactor* ListAgents(
      grpc::CallbackServerContext* context,
      const v1::ListAgentsRequest* request,
      v1::ListAgentsResponse* response) override;
  grpc::ServerUnaryReactor* KvSet(grpc::CallbackServerContext* context,
                                  const v1::KvSetRequest* request,
                                  v1::KvSetResponse* response) override;
  // Waits at most the timeout budget's max_kv_wait.
  grpc::ServerUnaryReactor* KvGet(grpc::CallbackServerContext* context,
                                  const v1::KvGetRequest* request,
                                  v1::KvGetResponse* response) override;
  grpc::ServerWriteReactor<v1::SweepEvent>* RunSweep(
      grpc::CallbackServerContext* context,
      const v1::SweepRequest* request) override;
  grpc::ServerUnaryReactor* AbortSweep(
      grpc::CallbackServerContext* context,
      const v1::AbortSweepRequest* request,
      v1::AbortSweepResponse* response) override;
  grpc::ServerUnaryReactor* ListSweeps(
      grpc::CallbackServerContext* context,
      const v1::ListSweepsRequest* request,
      v1::ListSweepsResponse* response) override;
  grpc::ServerUnaryReactor* GetSweep(grpc::CallbackServerContext* context,
                                     const v1::GetSweepRequest* request,
                                     v1::GetSweepResponse* response) override;
  grpc::ServerUnaryReactor* Diagnose(grpc::CallbackServerContext* context,
                                     const v1::DiagnoseRequest* request,
                                     v1::DiagnoseResponse* response) override;
  grpc::ServerUnaryReactor* Stats(
      grpc::CallbackServerContext* context,
      const v1::CoordinatorStatsRequest* request,
      v1::CoordinatorStatsResponse* response) override;
  // The config's plans (config_listing.h). Always OK.
  grpc::ServerUnaryReactor* ListPlans(grpc::CallbackServerContext* context,
                                      const v1::ListPlansRequest* request,
                                      v1::ListPlansResponse* response) override;
  // The schedules as the scheduler holds them, each with its newest sweep
  // in the history. Errors: those of the history (INTERNAL, UNAVAILABLE).
  grpc::ServerUnaryReactor* ListSchedules(
      grpc::CallbackServerContext* context,
      const v1::ListSchedulesRequest* request,
      v1::ListSchedulesResponse* response) override;
  // CampaignRunner::Start's errors; UNAVAILABLE without a runner.
  grpc::ServerUnaryReactor* StartCampaign(
      grpc::CallbackServerContext* context,
      const v1::StartCampaignRequest* request,
      v1::StartCampaignResponse* response) override;
  // CampaignRunner::Nodes's and the history's errors.
  grpc::ServerUnaryReactor* ListNodes(grpc::CallbackServerContext* context,
                                      const v1::ListNodesRequest* request,
                                      v1::ListNodesResponse* response) override;

 private:
  // Hands `serve` (one of the Serve* below) to the pool for this call.
  template <typename Request, typename Response>
  grpc::ServerUnaryReactor* Pooled(
      grpc::CallbackServerContext* context, const Request* request,
      Response* response,
      grpc::Status (CoordinatorServiceImpl::*serve)(
          grpc::CallbackServerContext*, const Request*, Response*)) {
    return pooled_.Serve(context, [this, serve, context, request, response] {
      return (this->*serve)(context, request, response);
    });
  }
  // The work of the pooled calls above (PooledCalls::Serve runs them).
  grpc::Status ServeListAgents(grpc::CallbackServerContext* context,
                               const v1::ListAgentsRequest* request,
                               v1::ListAgentsResponse* response);
  grpc::Status ServeAbortSweep(grpc::CallbackServerContext* context,
                               const v1::AbortSweepRequest* request,
                               v1::AbortSweepResponse* response);
  grpc::Status ServeListSweeps(grpc::CallbackServerContext* context,
                               const v1::ListSweepsRequest* request,
                               v1::ListSweepsResponse* response);
  grpc::Status ServeGetSweep(grpc::CallbackServerContext* context,
                             const v1::GetSweepRequest* request,
                             v1::GetSweepResponse* response);
  grpc::Status ServeDiagnose(grpc::CallbackServerContext* context,
                             const v1::DiagnoseRequest* request,
                             v1::DiagnoseResponse* response);
  grpc::Status ServeStats(grpc::CallbackServerContext* context,
                          const v1::CoordinatorStatsRequest* request,
                          v1::CoordinatorStatsResponse* response);
  grpc::Status ServeListPlans(grpc::CallbackServerContext* context,
                              const v1::ListPlansRequest* request,
                              v1::ListPlansResponse* response);
  grpc::Status ServeListSchedules(grpc::CallbackServerContext* context,
                                  const v1::ListSchedulesRequest* request,
                                  v1::ListSchedulesResponse* response);
  grpc::Status ServeStartCampaign(grpc::CallbackServerContext* context,
                                  const v1::StartCampaignRequest* request,
                                  v1::StartCampaignResponse* response);
  grpc::Status ServeListNodes(grpc::CallbackServerContext* context,
                              const v1::ListNodesRequest* request,
                              v1::ListNodesResponse* response);
  // Adds to a ListSweeps answer the campaigns its group sweeps belong to.
  void AddListedCampaigns(v1::ListSweepsResponse& response);
  // Heartbeat's work: checks the caller is the agent id's node, records the
  // beat, fills `response` (with the node's verdict when `campaigns` judges
  // it).
  absl::Status AnswerRegister(const grpc::ServerContextBase& context,
                              const v1::RegisterRequest& request,
                              v1::RegisterResponse& response);
  static absl::Status AnswerHeartbeat(Membership& membership,
                                      CampaignRunner* campaigns,
                                      const grpc::ServerContextBase& context,
                                      const v1::HeartbeatRequest& request,
                                      v1::HeartbeatResponse& response);

  SweepOrchestrator* const orchestrator_;
  RendezvousStore* const store_;
  HistoryStore* const history_;
  const core::CoordinatorConfig* const config_;
  Scheduler* const scheduler_;
  CampaignRunner* const campaigns_;
  SweepThreads sweep_threads_;
  // Last: destroyed first, after the server has shut down.
  PooledCalls pooled_{common::kCoordinatorReaderThreads,
                      {.per_identity = common::kCoordinatorCallsPerIdentity,
                       .anonymous = common::kCoordinatorAnonymousCalls}};
};

}  // namespace fabricpulse::coordinator
