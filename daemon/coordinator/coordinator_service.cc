#include "daemon/coordinator/coordinator_service.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "daemon/common/grpc_status.h"
#include "daemon/coordinator/campaign_listing.h"
#include "daemon/coordinator/config_listing.h"
#include "daemon/coordinator/history_convert.h"
#include "daemon/coordinator/kv_get_reactor.h"
#include "daemon/coordinator/request_checks.h"
#include "daemon/core/limits.h"
#include "daemon/security/caller.h"

namespace fabricpulse::coordinator {

CoordinatorServiceImpl::CoordinatorServiceImpl(
    SweepOrchestrator* orchestrator, RendezvousStore* store,
    HistoryStore* history, const core::CoordinatorConfig* config,
    Scheduler* scheduler, CampaignRunner* campaigns)
    : orchestrator_(orchestrator),
      store_(store),
      history_(history),
      config_(config),
      scheduler_(scheduler),
      campaigns_(campaigns) {}

grpc::ServerUnaryReactor* CoordinatorServiceImpl::Register(
    grpc::CallbackServerContext* context, const v1::RegisterRequest* request,
    v1::RegisterResponse* response) {
  return common::FinishNow(context,
                           AnswerRegister(*context, *request, *response));
}

absl::Status CoordinatorServiceImpl::AnswerRegister(
    const grpc::ServerContextBase& context, const v1::RegisterRequest& request,
    v1::RegisterResponse& response) {
  // An agent registers only as the node its certificate names: a stolen
  // agent id or a forged node name redirects nothing.
  absl::Status bound =
      security::RequireAgentNode(context, request.agent().node_name());
  if (!bound.ok()) return bound;
  auto registered = orchestrator_->membership().Register(
      request.agent(), security::PeerHost(context));
  if (!registered.ok()) return registered.status();
  security::Audit(context,
                  absl::StrCat("registered node ", request.agent().node_name(),
                               " at ", request.agent().address(), " (epoch ",
                               registered->epoch, ")"));
  orchestrator_->NodeRegistered(request.agent().node_name());
  response.set_agent_id(registered->agent_id);
  response.set_membership_epoch(registered->epoch);
  // The agents gauge is refreshed by the coordinator's housekeeping: doing
  // it here made registering N agents cost O(N^2).
  response.set_heartbeat_interval_seconds(
      absl::ToDoubleSeconds(orchestrator_->membership().HeartbeatInterval()));
  return absl::OkStatus();
}

grpc::ServerUnaryReactor* CoordinatorServiceImpl::Heartbeat(
    grpc::CallbackServerContext* context, const v1::HeartbeatRequest* request,
    v1::HeartbeatResponse* response) {
  return common::FinishNow(
      context, AnswerHeartbeat(orchestrator_->membership(), campaigns_,
                               *context, *request, *response));
}

absl::Status CoordinatorServiceImpl::AnswerHeartbeat(
    Membership& membership, CampaignRunner* campaigns,
    const grpc::ServerContextBase& context, const v1::HeartbeatRequest& request,
    v1::HeartbeatResponse& response) {
  // Agent ids are not bearer secrets: the caller must be the id's node.
  absl::StatusOr<std::string> node = membership.NodeOf(request.agent_id());
  if (!node.ok()) return node.status();
  absl::Status bound = security::RequireAgentNode(context, *node);
  if (!bound.ok()) return bound;
  std::vector<v1::WorkerInfo> workers(request.workers().begin(),
                                      request.workers().end());
  auto answer =
      membership.Heartbeat(request.agent_id(), workers,
                           request.has_nics() ? &request.nics() : nullptr);
  if (!answer.ok()) return answer.status();
  response.set_membership_epoch(answer->epoch);
  response.set_sweep_id(answer->sweep_id);
  response.set_heartbeat_interval_seconds(
      absl::ToDoubleSeconds(membership.HeartbeatInterval()));
  if (campaigns != nullptr) {
    std::optional<v1::NodeVerdictNotice> verdict =
        campaigns->VerdictFor(answer->node, answer->labels);
    if (verdict) *response.mutable_node_verdict() = std::move(*verdict);
  }
  return absl::OkStatus();
}

grpc::ServerUnaryReactor* CoordinatorServiceImpl::ListAgents(
    grpc::CallbackServerContext* context, const v1::ListAgentsRequest* request,
    v1::ListAgentsResponse* response) {
  return Pooled(context, request, response,
                &CoordinatorServiceImpl::ServeListAgents);
}

grpc::Status CoordinatorServiceImpl::ServeListAgents(
    grpc::CallbackServerContext* context, const v1::ListAgentsRequest* request,
    v1::ListAgentsResponse* response) {
  Membership& membership = orchestrator_->membership();
  for (const v1::AgentInfo& info : orchestrator_->AgentsWithLinkHealth()) {
    v1::AgentInfo* shown = response->add_agents();
    *shown = info;
    // Never shown: with them, a holder of the node's key could pass for
    // the live agent's own process (Membership::Register).
    shown->clear_instance_id();
    shown->clear_boot_id();
  }
  orchestrator_->UpdateAgentMetrics();
  response->set_membership_epoch(membership.epoch());
  return grpc::Status::OK;
}

// The caller is the node its certificate names: only members of the sweep
// that owns a key may touch it ("" on a plaintext server: no member check).
grpc::ServerUnaryReactor* CoordinatorServiceImpl::KvSet(
    grpc::CallbackServerContext* context, const v1::KvSetRequest* request,
    v1::KvSetResponse* response) {
  absl::StatusOr<std::string> caller = security::CallerAgentNode(*context);
  return common::FinishNow(
      context, caller.ok()
                   ? store_->Set(*caller, request->key(), request->value())
                   : caller.status());
}

grpc::ServerUnaryReactor* CoordinatorServiceImpl::KvGet(
    grpc::CallbackServerContext* context, const v1::KvGetRequest* request,
    v1::KvGetResponse* response) {
  // NaN and negative waits answer at once; the longest is max_kv_wait.
  const double seconds =
      std::isnan(request->wait_seconds()) ? 0 : request->wait_seconds();
  const absl::Duration wait =
      std::clamp(absl::Seconds(seconds), absl::ZeroDuration(),
                 orchestrator_->timeouts().max_kv_wait);
  absl::StatusOr<std::string> caller = security::CallerAgentNode(*context);
  if (!caller.ok()) return common::FinishNow(context, caller.status());
  return KvGetReactor::Start(store_, *caller, request->key(), wait, response);
}

grpc::ServerWriteReactor<v1::SweepEvent>* CoordinatorServiceImpl::RunSweep(
    grpc::CallbackServerContext* context, const v1::SweepRequest* request) {
  security::Audit(*context,
                  absl::StrCat("asked for a sweep: ",
                               request->plan().empty()
                                   ? "ad-hoc"
                                   : "plan " + request->plan().substr(0, 64),
                               ", ", request->spec().ops_size(), " op(s), ",
                               request->nodes_size(), " node(s) named"));
  return SweepStream::Start(orchestrator_, &sweep_threads_, *request);
}

grpc::ServerUnaryReactor* CoordinatorServiceImpl::ListSweeps(
    grpc::CallbackServerContext* context, const v1::ListSweepsRequest* request,
    v1::ListSweepsResponse* response) {
  return Pooled(context, request, response,
                &CoordinatorServiceImpl::ServeListSweeps);
}

grpc::Status CoordinatorServiceImpl::ServeListSweeps(
    grpc::CallbackServerContext* context, const v1::ListSweepsRequest* request,
    v1::ListSweepsResponse* response) {
  auto last = ListSweepsLimit(*request);
  if (!last.ok()) return common::ToGrpcStatus(last.status());
  auto sweeps = history_->ListSweeps(*last);
  if (!sweeps.ok()) return common::ToGrpcStatus(sweeps.status());
  size_t bytes = 0;  // the answer stays within core::kMaxListResponseBytes
  for (const SweepRecord& r : *sweeps) {
    auto full = history_->GetSweep(r.id);
    v1::SweepSummary summary =
        SummaryFromRecord(r, full.ok() ? &full->steps : nullptr);
    bytes += summary.ByteSizeLong() + 8;  // and its tag and length
    if (bytes > core::kMaxListResponseBytes) {
      response->set_left_out(static_cast<int>(sweeps->size()) -
                             response->sweeps_size());
      break;
    }
    *response->add_sweeps() = std::move(summary);
  }
  AddListedCampaigns(*response);
  return grpc::Status::OK;
}

void CoordinatorServiceImpl::AddListedCampaigns(
    v1::ListSweepsResponse& response) {
  std::set<std::string> ids;
  for (const v1::SweepSummary& s : response.sweeps()) {
    absl::string_view trigger = s.trigger();
    if (absl::ConsumePrefix(&trigger, kCampaignTriggerPrefix)) {
      ids.insert(std::string(trigger));
    }
  }
  if (ids.empty()) return;
  // Running campaigns as they stand now; the others from the history
  // (at most kMaxStoredCampaigns rows).
  std::map<std::string, CampaignRecord> found;
  if (campaigns_ != nullptr) {
    auto running = campaigns_->NewestCampaigns("");
    if (running.ok()) {
      for (CampaignRecord& r : *running) {
        if (ids.count(r.id) > 0) found[r.id] = std::move(r);
      }
    }
  }
  auto stored = history_->ListCampaigns("", kMaxStoredCampaigns);
  if (stored.ok()) {
    for (CampaignRecord& r : *stored) {
      if (ids.count(r.id) > 0 && found.count(r.id) == 0) {
        found[r.id] = std::move(r);
      }
    }
  }
  std::vector<const CampaignRecord*> newest;
  for (const auto& [id, r] : found) newest.push_back(&r);
  std::sort(newest.begin(), newest.end(),
            [](const CampaignRecord* a, const CampaignRecord* b) {
              return a->started > b->started;
            });
  for (const CampaignRecord* r : newest) {
    *response.add_campaigns() = CampaignInfoOf(*r);
  }
}

grpc::ServerUnaryReactor* CoordinatorServiceImpl::GetSweep(
    grpc::CallbackServerContext* context, const v1::GetSweepRequest* request,
    v1::GetSweepResponse* response) {
  return Pooled(context, request, response,
                &CoordinatorServiceImpl::ServeGetSweep);
}

grpc::Status CoordinatorServiceImpl::ServeGetSweep(
    grpc::CallbackServerContext* context, const v1::GetSweepRequest* request,
    v1::GetSweepResponse* response) {
  auto sweep = history_->GetSweep(request->sweep_id());
  if (!sweep.ok()) return common::ToGrpcStatus(sweep.status());
  *response->mutable_sweep() = SummaryFromRecord(sweep->sweep, &sweep->steps);
  auto isolation = history_->GetIsolation(request->sweep_id());
  if (isolation.ok() && isolation->has_value()) {
    *response->mutable_sweep()->mutable_isolation() =
        IsolationToProto(**isolation);
  }
  for (const StepRecord& s : sweep->steps) {
    *response->add_results() = ResultFromStepRecord(s);
  }
  return grpc::Status::OK;
}

grpc::ServerUnaryReactor* CoordinatorServiceImpl::AbortSweep(
    grpc::CallbackServerContext* context, const v1::AbortSweepRequest* request,
    v1::AbortSweepResponse* response) {
  return Pooled(context, request, response,
                &CoordinatorServiceImpl::ServeAbortSweep);
}

grpc::Status CoordinatorServiceImpl::ServeAbortSweep(
    grpc::CallbackServerContext* context, const v1::AbortSweepRequest* request,
    v1::AbortSweepResponse* response) {
  security::Audit(
      *context,
      absl::StrCat("asked to abort ",
                   request->sweep_id().empty()
                       ? std::string("every running sweep")
                       : "sweep " + request->sweep_id().substr(0, 64)));
  auto aborted = orchestrator_->Abort(request->sweep_id());
  if (!aborted.ok()) return common::ToGrpcStatus(aborted.status());
  for (const std::string& id : *aborted) response->add_aborted(id);
  return grpc::Status::OK;
}

grpc::ServerUnaryReactor* CoordinatorServiceImpl::Diagnose(
    grpc::CallbackServerContext* context, const v1::DiagnoseRequest* request,
    v1::DiagnoseResponse* response) {
  return Pooled(context, request, response,
                &CoordinatorServiceImpl::ServeDiagnose);
}

grpc::Status CoordinatorServiceImpl::ServeDiagnose(
    grpc::CallbackServerContext* context, const v1::DiagnoseRequest* request,
    v1::DiagnoseResponse* response) {
  auto diagnosis = orchestrator_->Diagnose(request->sweep_id());
  if (!diagnosis.ok()) return common::ToGrpcStatus(diagnosis.status());
  *response = std::move(*diagnosis);
  return grpc::Status::OK;
}

grpc::ServerUnaryReactor* CoordinatorServiceImpl::Stats(
    grpc::CallbackServerContext* context,
    const v1::CoordinatorStatsRequest* request,
    v1::CoordinatorStatsResponse* response) {
  return Pooled(context, request, response,
                &CoordinatorServiceImpl::ServeStats);
}

grpc::Status CoordinatorServiceImpl::ServeStats(
    grpc::CallbackServerContext* context,
    const v1::CoordinatorStatsRequest* request,
    v1::CoordinatorStatsResponse* response) {
  response->set_kv_sets(store_->sets());
  const RendezvousStore::Usage kv = store_->usage();
  response->set_kv_keys(kv.keys);
  response->set_kv_bytes(kv.bytes);
  response->set_kv_waiters(kv.waiters);
  response->set_sweeps_started(orchestrator_->sweeps_started());
  response->set_registrations_refused(
      orchestrator_->membership().registrations_refused());
  return grpc::Status::OK;
}

grpc::ServerUnaryReactor* CoordinatorServiceImpl::ListPlans(
    grpc::CallbackServerContext* context, const v1::ListPlansRequest* request,
    v1::ListPlansResponse* response) {
  return Pooled(context, request, response,
                &CoordinatorServiceImpl::ServeListPlans);
}

grpc::Status CoordinatorServiceImpl::ServeListPlans(
    grpc::CallbackServerContext* context, const v1::ListPlansRequest* request,
    v1::ListPlansResponse* response) {
  *response = ListPlansAnswer(config_ != nullptr ? *config_
                                                 : core::CoordinatorConfig{});
  return grpc::Status::OK;
}

grpc::ServerUnaryReactor* CoordinatorServiceImpl::ListSchedules(
    grpc::CallbackServerContext* context,
    const v1::ListSchedulesRequest* request,
    v1::ListSchedulesResponse* response) {
  return Pooled(context, request, response,
                &CoordinatorServiceImpl::ServeListSchedules);
}

grpc::Status CoordinatorServiceImpl::ServeListSchedules(
    grpc::CallbackServerContext* context,
    const v1::ListSchedulesRequest* request,
    v1::ListSchedulesResponse* response) {
  if (scheduler_ == nullptr) return grpc::Status::OK;
  const std::vector<ScheduleState> states = scheduler_->Snapshot();
  if (states.empty()) return grpc::Status::OK;
  auto newest = history_->NewestByTrigger(ScheduleTrigger(""));
  if (!newest.ok()) return common::ToGrpcStatus(newest.status());
  *response = ListSchedulesAnswer(states, *newest);
  return grpc::Status::OK;
}

grpc::ServerUnaryReactor* CoordinatorServiceImpl::StartCampaign(
    grpc::CallbackServerContext* context,
    const v1::StartCampaignRequest* request,
    v1::StartCampaignResponse* response) {
  return Pooled(context, request, response,
                &CoordinatorServiceImpl::ServeStartCampaign);
}

grpc::Status CoordinatorServiceImpl::ServeStartCampaign(
    grpc::CallbackServerContext* context,
    const v1::StartCampaignRequest* request,
    v1::StartCampaignResponse* response) {
  if (campaigns_ == nullptr) {
    return common::ToGrpcStatus(
        absl::UnavailableError("this coordinator runs no campaigns"));
  }
  absl::StatusOr<std::string> id =
      campaigns_->Start(request->plan(), "cli", request->grouping());
  if (!id.ok()) return common::ToGrpcStatus(id.status());
  response->set_campaign_id(*id);
  return grpc::Status::OK;
}

grpc::ServerUnaryReactor* CoordinatorServiceImpl::ListNodes(
    grpc::CallbackServerContext* context, const v1::ListNodesRequest* request,
    v1::ListNodesResponse* response) {
  return Pooled(context, request, response,
                &CoordinatorServiceImpl::ServeListNodes);
}

grpc::Status CoordinatorServiceImpl::ServeListNodes(
    grpc::CallbackServerContext* context, const v1::ListNodesRequest* request,
    v1::ListNodesResponse* response) {
  if (campaigns_ == nullptr) return grpc::Status::OK;
  // Nodes() checks the plan itself; without it, the check is made here.
  std::vector<PlanNodeStatus> nodes;
  if (request->campaigns_only()) {
    absl::Status named = campaigns_->RequireCampaignPlan(request->plan());
    if (!named.ok()) return common::ToGrpcStatus(named);
  } else {
    absl::StatusOr<std::vector<PlanNodeStatus>> listed =
        campaigns_->Nodes(request->plan());
    if (!listed.ok()) return common::ToGrpcStatus(listed.status());
    nodes = *std::move(listed);
  }
  absl::StatusOr<std::vector<CampaignRecord>> newest =
      campaigns_->NewestCampaigns(request->plan());
  if (!newest.ok()) return common::ToGrpcStatus(newest.status());
  *response = ListNodesAnswer(nodes, *newest);
  return grpc::Status::OK;
}

}  // namespace fabricpulse::coordinator
