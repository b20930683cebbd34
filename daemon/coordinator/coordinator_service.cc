#include "daemon/coordinator/coordinator_service.h"

#include <random>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "daemon/common/grpc_status.h"
#include "daemon/common/spec_convert.h"
#include "daemon/core/backend_support.h"
#include "daemon/core/log.h"

namespace fabricpulse::coordinator {
namespace {

constexpr absl::Duration kDescribeTimeout = absl::Seconds(3);
constexpr absl::Duration kMaxKvWait = absl::Seconds(60);

std::string NewSweepId() {
  static std::random_device rd;
  return absl::StrCat(
      absl::FormatTime("%Y%m%d-%H%M%S", absl::Now(), absl::UTCTimeZone()), "-",
      absl::Hex(rd() & 0xffff, absl::kZeroPad4));
}

// Fresh descriptions (worker readiness and incarnations) of every agent,
// asked in parallel. Errors: UNAVAILABLE naming the unreachable node.
absl::Status Refresh(std::vector<v1::AgentInfo>& agents,
                     common::ChannelPool& channels) {
  std::vector<grpc::Status> statuses(agents.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < agents.size(); ++i) {
    threads.emplace_back([&, i] {
      auto stub = v1::AgentService::NewStub(channels.Get(agents[i].address()));
      grpc::ClientContext ctx;
      ctx.set_deadline(absl::ToChronoTime(absl::Now() + kDescribeTimeout));
      v1::DescribeRequest req;
      v1::DescribeResponse resp;
      statuses[i] = stub->Describe(&ctx, req, &resp);
      if (statuses[i].ok()) agents[i] = resp.agent();
    });
  }
  for (std::thread& t : threads) t.join();
  for (size_t i = 0; i < agents.size(); ++i) {
    if (!statuses[i].ok()) {
      return absl::UnavailableError(absl::StrCat(
          "node ", agents[i].node_name(), " (", agents[i].address(),
          ") does not answer: ", statuses[i].error_message()));
    }
    for (const v1::WorkerInfo& w : agents[i].workers()) {
      if (!w.ready()) {
        return absl::UnavailableError(absl::StrCat(
            "node ", agents[i].node_name(), " worker ", w.local_index(),
            " is not ready (starting or restarting after ", w.restarts(),
            " restart(s)); retry shortly"));
      }
    }
  }
  return absl::OkStatus();
}

std::string OutcomeName(const absl::Status& status) {
  if (status.ok()) return "succeeded";
  if (status.code() == absl::StatusCode::kAborted) return "aborted";
  return "failed";
}

}  // namespace

CoordinatorServiceImpl::CoordinatorServiceImpl(CoordinatorOptions options,
                                               CoordinatorMetrics* metrics)
    : options_(std::move(options)),
      metrics_(metrics),
      membership_(options_.agent_lease) {}

void CoordinatorServiceImpl::SetAdvertisedAddress(const std::string& address) {
  absl::MutexLock lock(&mu_);
  advertised_address_ = address;
}

void CoordinatorServiceImpl::AbortAll() {
  absl::MutexLock lock(&mu_);
  for (auto& [id, runner] : running_) runner->Abort();
}

grpc::Status CoordinatorServiceImpl::Register(
    grpc::ServerContext* context, const v1::RegisterRequest* request,
    v1::RegisterResponse* response) {
  auto registered = membership_.Register(request->agent());
  if (!registered.ok()) return common::ToGrpcStatus(registered.status());
  response->set_agent_id(registered->agent_id);
  response->set_membership_epoch(registered->epoch);
  response->set_heartbeat_interval_seconds(
      absl::ToDoubleSeconds(options_.heartbeat_interval));
  return grpc::Status::OK;
}

grpc::Status CoordinatorServiceImpl::Heartbeat(
    grpc::ServerContext* context, const v1::HeartbeatRequest* request,
    v1::HeartbeatResponse* response) {
  std::vector<v1::WorkerInfo> workers(request->workers().begin(),
                                      request->workers().end());
  return common::ToGrpcStatus(
      membership_.Heartbeat(request->agent_id(), workers));
}

grpc::Status CoordinatorServiceImpl::ListAgents(
    grpc::ServerContext* context, const v1::ListAgentsRequest* request,
    v1::ListAgentsResponse* response) {
  for (const v1::AgentInfo& info : membership_.List()) {
    *response->add_agents() = info;
  }
  response->set_membership_epoch(membership_.epoch());
  return grpc::Status::OK;
}

grpc::Status CoordinatorServiceImpl::KvSet(grpc::ServerContext* context,
                                           const v1::KvSetRequest* request,
                                           v1::KvSetResponse* response) {
  return common::ToGrpcStatus(store_.Set(request->key(), request->value()));
}

grpc::Status CoordinatorServiceImpl::KvGet(grpc::ServerContext* context,
                                           const v1::KvGetRequest* request,
                                           v1::KvGetResponse* response) {
  const absl::Duration wait = std::min(
      kMaxKvWait,
      std::max(absl::ZeroDuration(), absl::Seconds(request->wait_seconds())));
  auto value = store_.Get(request->key(), wait);
  if (!value.ok()) return common::ToGrpcStatus(value.status());
  response->set_value(*value);
  return grpc::Status::OK;
}

absl::StatusOr<SweepPlan> CoordinatorServiceImpl::Plan(
    const v1::SweepRequest& request) {
  const core::SweepSpec spec = common::SpecFromProto(request.spec());
  std::vector<std::string> nodes(request.nodes().begin(),
                                 request.nodes().end());
  auto agents = membership_.Select(nodes);
  if (!agents.ok()) return agents.status();
  absl::Status fresh = Refresh(*agents, channels_);
  if (!fresh.ok()) return fresh;
  SweepPlan plan;
  plan.backend = agents->front().backend();
  for (const v1::AgentInfo& agent : *agents) {
    plan.nranks += agent.workers_size();
    if (agent.backend() != plan.backend) {
      return absl::FailedPreconditionError(absl::StrCat(
          "nodes: mixed backends (", agents->front().node_name(), " runs ",
          plan.backend, ", ", agent.node_name(), " runs ", agent.backend(),
          "); select nodes of one backend with --nodes"));
    }
  }
  auto resolved = core::Validate(spec, plan.nranks);
  if (!resolved.ok()) return resolved.status();
  absl::Status supported =
      core::CheckBackendSupport(plan.backend, *resolved, spec);
  if (!supported.ok()) return supported;
  auto steps = core::Expand(spec, plan.nranks);
  if (!steps.ok()) return steps.status();
  plan.steps = std::move(*steps);
  plan.sweep_id = NewSweepId();
  plan.comm_id = naming_.CommId(*agents, membership_.epoch());
  plan.spec = common::SpecToProto(spec);
  plan.agents = std::move(*agents);
  {
    absl::MutexLock lock(&mu_);
    plan.coordinator_address = advertised_address_;
  }
  plan.op_timeout = spec.timeout;
  plan.iterations_per_step = spec.warmup_iters + spec.iters + 2;
  return plan;
}

grpc::Status CoordinatorServiceImpl::RunSweep(
    grpc::ServerContext* context, const v1::SweepRequest* request,
    grpc::ServerWriter<v1::SweepEvent>* writer) {
  auto plan = Plan(*request);
  if (!plan.ok()) return common::ToGrpcStatus(plan.status());
  std::vector<std::string> nodes;
  for (const v1::AgentInfo& a : plan->agents) nodes.push_back(a.node_name());
  absl::Status reserved = membership_.Reserve(nodes, plan->sweep_id);
  if (!reserved.ok()) return common::ToGrpcStatus(reserved);

  const std::string sweep_id = plan->sweep_id;
  const std::vector<v1::AgentInfo> agents = plan->agents;
  auto runner = std::make_shared<SweepRunner>(std::move(*plan), &channels_);
  {
    absl::MutexLock lock(&mu_);
    running_[sweep_id] = runner;
    sweeps_started_++;
  }
  FP_LOG_INFO(absl::StrCat("sweep ", sweep_id, " started on ", nodes.size(),
                           " node(s)"));
  const absl::Time start = absl::Now();
  absl::Status status = runner->Run(
      [writer](const v1::SweepEvent& event) { return writer->Write(event); },
      [context] { return context->IsCancelled(); });
  const double duration = absl::ToDoubleSeconds(absl::Now() - start);
  if (!status.ok()) naming_.Retire(agents);
  {
    absl::MutexLock lock(&mu_);
    running_.erase(sweep_id);
  }
  membership_.Release(nodes);
  const std::string outcome = OutcomeName(status);
  metrics_->SweepFinished(outcome, duration);
  FP_LOG_INFO(absl::StrCat("sweep ", sweep_id, " ", outcome,
                           status.ok() ? "" : ": ",
                           status.ok() ? "" : status.message()));
  v1::SweepEvent finished;
  finished.mutable_finished()->set_sweep_id(sweep_id);
  finished.mutable_finished()->set_status(outcome);
  finished.mutable_finished()->set_error(std::string(status.message()));
  finished.mutable_finished()->set_duration_seconds(duration);
  writer->Write(finished);
  return common::ToGrpcStatus(status);
}

grpc::Status CoordinatorServiceImpl::AbortSweep(
    grpc::ServerContext* context, const v1::AbortSweepRequest* request,
    v1::AbortSweepResponse* response) {
  absl::MutexLock lock(&mu_);
  for (auto& [id, runner] : running_) {
    if (request->sweep_id().empty() || request->sweep_id() == id) {
      runner->Abort();
      response->add_aborted(id);
    }
  }
  if (response->aborted_size() == 0) {
    return grpc::Status(
        grpc::StatusCode::NOT_FOUND,
        request->sweep_id().empty()
            ? "no sweep is running"
            : absl::StrCat("sweep ", request->sweep_id(), " is not running"));
  }
  return grpc::Status::OK;
}

grpc::Status CoordinatorServiceImpl::Stats(
    grpc::ServerContext* context, const v1::CoordinatorStatsRequest* request,
    v1::CoordinatorStatsResponse* response) {
  response->set_kv_sets(store_.sets());
  absl::MutexLock lock(&mu_);
  response->set_sweeps_started(sweeps_started_);
  return grpc::Status::OK;
}

}  // namespace fabricpulse::coordinator
