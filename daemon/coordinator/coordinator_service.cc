#include "daemon/coordinator/coordinator_service.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "daemon/common/grpc_status.h"
#include "daemon/coordinator/history_convert.h"
#include "daemon/coordinator/request_checks.h"

namespace fabricpulse::coordinator {

CoordinatorServiceImpl::CoordinatorServiceImpl(SweepOrchestrator* orchestrator,
                                               RendezvousStore* store,
                                               HistoryStore* history)
    : orchestrator_(orchestrator), store_(store), history_(history) {}

grpc::Status CoordinatorServiceImpl::Register(
    grpc::ServerContext* context, const v1::RegisterRequest* request,
    v1::RegisterResponse* response) {
  auto registered = orchestrator_->membership().Register(request->agent());
  if (!registered.ok()) return common::ToGrpcStatus(registered.status());
  response->set_agent_id(registered->agent_id);
  response->set_membership_epoch(registered->epoch);
  // The agents gauge is refreshed by the coordinator's housekeeping: doing
  // it here made registering N agents cost O(N^2).
  response->set_heartbeat_interval_seconds(
      absl::ToDoubleSeconds(orchestrator_->membership().HeartbeatInterval()));
  return grpc::Status::OK;
}

grpc::Status CoordinatorServiceImpl::Heartbeat(
    grpc::ServerContext* context, const v1::HeartbeatRequest* request,
    v1::HeartbeatResponse* response) {
  std::vector<v1::WorkerInfo> workers(request->workers().begin(),
                                      request->workers().end());
  auto answer =
      orchestrator_->membership().Heartbeat(request->agent_id(), workers);
  if (!answer.ok()) return common::ToGrpcStatus(answer.status());
  response->set_membership_epoch(answer->epoch);
  response->set_sweep_id(answer->sweep_id);
  response->set_heartbeat_interval_seconds(
      absl::ToDoubleSeconds(orchestrator_->membership().HeartbeatInterval()));
  return grpc::Status::OK;
}

grpc::Status CoordinatorServiceImpl::ListAgents(
    grpc::ServerContext* context, const v1::ListAgentsRequest* request,
    v1::ListAgentsResponse* response) {
  Membership& membership = orchestrator_->membership();
  for (const v1::AgentInfo& info : membership.List()) {
    *response->add_agents() = info;
  }
  orchestrator_->UpdateAgentMetrics();
  response->set_membership_epoch(membership.epoch());
  return grpc::Status::OK;
}

grpc::Status CoordinatorServiceImpl::KvSet(grpc::ServerContext* context,
                                           const v1::KvSetRequest* request,
                                           v1::KvSetResponse* response) {
  return common::ToGrpcStatus(store_->Set(request->key(), request->value()));
}

grpc::Status CoordinatorServiceImpl::KvGet(grpc::ServerContext* context,
                                           const v1::KvGetRequest* request,
                                           v1::KvGetResponse* response) {
  const absl::Duration wait =
      std::clamp(absl::Seconds(request->wait_seconds()), absl::ZeroDuration(),
                 orchestrator_->timeouts().max_kv_wait);
  auto value = store_->Get(request->key(), wait);
  if (!value.ok()) return common::ToGrpcStatus(value.status());
  response->set_value(*value);
  return grpc::Status::OK;
}

grpc::ServerWriteReactor<v1::SweepEvent>* CoordinatorServiceImpl::RunSweep(
    grpc::CallbackServerContext* context, const v1::SweepRequest* request) {
  return SweepStream::Start(orchestrator_, &sweep_threads_, *request);
}

grpc::Status CoordinatorServiceImpl::ListSweeps(
    grpc::ServerContext* context, const v1::ListSweepsRequest* request,
    v1::ListSweepsResponse* response) {
  auto last = ListSweepsLimit(*request);
  if (!last.ok()) return common::ToGrpcStatus(last.status());
  auto sweeps = history_->ListSweeps(*last);
  if (!sweeps.ok()) return common::ToGrpcStatus(sweeps.status());
  for (const SweepRecord& r : *sweeps) {
    auto full = history_->GetSweep(r.id);
    *response->add_sweeps() =
        SummaryFromRecord(r, full.ok() ? &full->steps : nullptr);
  }
  return grpc::Status::OK;
}

grpc::Status CoordinatorServiceImpl::GetSweep(
    grpc::ServerContext* context, const v1::GetSweepRequest* request,
    v1::GetSweepResponse* response) {
  auto sweep = history_->GetSweep(request->sweep_id());
  if (!sweep.ok()) return common::ToGrpcStatus(sweep.status());
  *response->mutable_sweep() = SummaryFromRecord(sweep->sweep, &sweep->steps);
  for (const StepRecord& s : sweep->steps) {
    *response->add_results() = ResultFromStepRecord(s);
  }
  return grpc::Status::OK;
}

grpc::Status CoordinatorServiceImpl::AbortSweep(
    grpc::ServerContext* context, const v1::AbortSweepRequest* request,
    v1::AbortSweepResponse* response) {
  auto aborted = orchestrator_->Abort(request->sweep_id());
  if (!aborted.ok()) return common::ToGrpcStatus(aborted.status());
  for (const std::string& id : *aborted) response->add_aborted(id);
  return grpc::Status::OK;
}

grpc::Status CoordinatorServiceImpl::Diagnose(
    grpc::ServerContext* context, const v1::DiagnoseRequest* request,
    v1::DiagnoseResponse* response) {
  auto diagnosis = orchestrator_->Diagnose(request->sweep_id());
  if (!diagnosis.ok()) return common::ToGrpcStatus(diagnosis.status());
  *response = std::move(*diagnosis);
  return grpc::Status::OK;
}

grpc::Status CoordinatorServiceImpl::Stats(
    grpc::ServerContext* context, const v1::CoordinatorStatsRequest* request,
    v1::CoordinatorStatsResponse* response) {
  response->set_kv_sets(store_->sets());
  response->set_sweeps_started(orchestrator_->sweeps_started());
  return grpc::Status::OK;
}

}  // namespace fabricpulse::coordinator
