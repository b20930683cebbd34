#include "daemon/coordinator/coordinator_service.h"

#include <random>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "daemon/common/grpc_status.h"
#include "daemon/common/spec_convert.h"
#include "daemon/coordinator/diagnosis_collector.h"
#include "daemon/coordinator/history_convert.h"
#include "daemon/core/backend_support.h"
#include "daemon/core/log.h"
#include "daemon/core/phase_timer.h"
#include "daemon/core/straggler.h"

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
                                               HistoryStore* history,
                                               CoordinatorMetrics* metrics)
    : options_(std::move(options)),
      history_(history),
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
  UpdateAgentMetrics();
  return grpc::Status::OK;
}

grpc::Status CoordinatorServiceImpl::Heartbeat(
    grpc::ServerContext* context, const v1::HeartbeatRequest* request,
    v1::HeartbeatResponse* response) {
  std::vector<v1::WorkerInfo> workers(request->workers().begin(),
                                      request->workers().end());
  auto answer = membership_.Heartbeat(request->agent_id(), workers);
  if (!answer.ok()) return common::ToGrpcStatus(answer.status());
  response->set_membership_epoch(answer->epoch);
  response->set_sweep_id(answer->sweep_id);
  return grpc::Status::OK;
}

void CoordinatorServiceImpl::UpdateAgentMetrics() {
  int alive = 0, lost = 0;
  for (const v1::AgentInfo& info : membership_.List()) {
    (info.state() == "lost" ? lost : alive)++;
  }
  metrics_->SetAgents(alive, lost);
}

grpc::Status CoordinatorServiceImpl::ListAgents(
    grpc::ServerContext* context, const v1::ListAgentsRequest* request,
    v1::ListAgentsResponse* response) {
  int alive = 0, lost = 0;
  for (const v1::AgentInfo& info : membership_.List()) {
    *response->add_agents() = info;
    (info.state() == "lost" ? lost : alive)++;
  }
  metrics_->SetAgents(alive, lost);
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
  core::SweepSpec spec = common::SpecFromProto(request.spec());
  std::vector<std::string> nodes(request.nodes().begin(),
                                 request.nodes().end());
  std::string plan_name = "adhoc";
  if (!request.plan().empty()) {
    auto it = options_.config.plans.find(request.plan());
    if (it == options_.config.plans.end()) {
      std::vector<std::string> names;
      for (const auto& [name, plan] : options_.config.plans) {
        names.push_back(name);
      }
      return absl::InvalidArgumentError(absl::StrCat(
          "plan: unknown plan '", request.plan(), "'; defined: ",
          names.empty() ? "none (start the coordinator with --config)"
                        : absl::StrJoin(names, ", ")));
    }
    plan_name = it->first;
    spec = it->second.spec;
    if (nodes.empty()) nodes = it->second.nodes;
  }
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
  plan.plan_name = plan_name;
  plan.backend_version = agents->front().backend_version();
  std::vector<std::string> parts;
  for (const v1::AgentInfo& a : *agents) {
    parts.push_back(absl::StrCat(a.node_name(), "x", a.workers_size()));
  }
  plan.topology = absl::StrCat(plan.backend, ":", absl::StrJoin(parts, ","));
  for (const v1::AgentInfo& a : *agents) {
    for (int i = 0; i < a.workers_size(); ++i) {
      plan.rank_nodes.push_back(a.node_name());
    }
  }
  plan.membership_epoch = membership_.epoch();
  plan.comm_id = naming_.CommId(*agents, plan.membership_epoch);
  plan.spec = common::SpecToProto(spec);
  plan.agents = std::move(*agents);
  {
    absl::MutexLock lock(&mu_);
    plan.coordinator_address = advertised_address_;
  }
  plan.lease = options_.agent_lease;
  plan.op_timeout = spec.timeout;
  plan.iterations_per_step = spec.warmup_iters + spec.iters + 2;
  return plan;
}

void CoordinatorServiceImpl::RecordResult(const SweepPlan& plan,
                                          v1::StepResult& result) {
  const v1::StepKey& key = result.step();
  auto baseline = history_->Baseline(
      plan.plan_name, key.op(), key.dtype(), key.bytes(), plan.nranks,
      plan.topology, key.in_place(), options_.config.baseline_window);
  if (baseline.ok() && *baseline > 0) {
    result.set_baseline_busbw_bytes_per_second(*baseline);
    result.set_regression(result.busbw_bytes_per_second() <
                          *baseline * options_.config.regression_threshold);
  }
  metrics_->RecordStep(plan.plan_name, result, plan.nranks,
                       result.baseline_busbw_bytes_per_second(),
                       result.regression());
  const int slowest = result.slowest_rank();
  if (slowest >= 0 && slowest < static_cast<int>(plan.rank_nodes.size())) {
    metrics_->SlowestRank(plan.rank_nodes[slowest], slowest);
  }
  absl::Status stored =
      history_->AddStep(StepRecordFromResult(plan.sweep_id, result));
  if (!stored.ok()) {
    FP_LOG_ERROR(absl::StrCat("history: ", stored.message()));
  }
}

absl::Status CoordinatorServiceImpl::ExecuteSweep(
    const v1::SweepRequest& request, const std::string& trigger,
    const SweepSink& sink, const std::function<bool()>& cancelled) {
  core::PhaseTimer timer;
  auto plan = Plan(request);
  if (!plan.ok()) return plan.status();
  timer.Mark("plan");
  std::vector<std::string> nodes;
  for (const v1::AgentInfo& a : plan->agents) nodes.push_back(a.node_name());
  absl::Status reserved = membership_.Reserve(nodes, plan->sweep_id);
  if (!reserved.ok()) return reserved;

  const SweepPlan info = *plan;  // what the sink needs; the runner owns plan
  const std::string& sweep_id = info.sweep_id;
  SweepRecord record;
  record.id = sweep_id;
  record.plan = info.plan_name;
  record.trigger = trigger;
  record.spec_json = SpecToJson(info.spec);
  record.nodes = nodes;
  record.nranks = info.nranks;
  record.topology = info.topology;
  record.backend = info.backend;
  record.backend_version = info.backend_version;
  record.started = absl::Now();
  record.status = kSweepRunning;
  absl::Status begun = history_->BeginSweep(record);
  if (!begun.ok()) {
    membership_.Release(nodes);
    return absl::InternalError(
        absl::StrCat("history: cannot record the sweep: ", begun.message()));
  }
  timer.Mark("reserve+history");
  auto runner = std::make_shared<SweepRunner>(std::move(*plan), &channels_);
  {
    absl::MutexLock lock(&mu_);
    running_[sweep_id] = runner;
    sweeps_started_++;
  }
  FP_LOG_INFO(absl::StrCat("sweep ", sweep_id, " (", info.plan_name, ", ",
                           trigger, ") started on ", nodes.size(), " node(s)"));
  core::Diagnosis diagnosis;
  bool diagnosed = false;
  std::vector<core::MergedStep> merged;  // for the straggler signal
  runner->OnFailure([&](const absl::Status&) {
    diagnosis = CollectAndDiagnose(sweep_id, info.agents, channels_);
    diagnosed = true;
  });
  const absl::Time start = absl::Now();
  absl::Status status = runner->Run(
      [&](const v1::SweepEvent& event) {
        if (event.has_result()) {
          v1::SweepEvent copy = event;
          const absl::Time record_start = absl::Now();
          RecordResult(info, *copy.mutable_result());
          timer.Add("record results", absl::Now() - record_start);
          core::MergedStep m;
          m.slowest_rank = event.result().slowest_rank();
          m.min_rank_time_seconds = event.result().min_rank_time_seconds();
          m.max_rank_time_seconds = event.result().max_rank_time_seconds();
          merged.push_back(m);
          return sink(copy);
        }
        if (event.has_comm_ready()) {
          history_
              ->RecordComm(sweep_id, event.comm_ready().init_seconds(),
                           event.comm_ready().reused())
              .IgnoreError();
          if (!event.comm_ready().reused()) {
            metrics_->CommInit(info.nranks, event.comm_ready().init_seconds());
          }
        }
        return sink(event);
      },
      cancelled);
  timer.Mark("run");
  const double duration = absl::ToDoubleSeconds(absl::Now() - start);
  if (!status.ok()) naming_.Retire(info.agents);
  {
    absl::MutexLock lock(&mu_);
    running_.erase(sweep_id);
  }
  membership_.Release(nodes);
  const std::string outcome = OutcomeName(status);
  std::string diagnosis_json;
  if (diagnosed) {
    diagnosis_json = diagnosis.ToJson();
    if (!diagnosis.culprits.empty()) {
      const core::Verdict& culprit = diagnosis.culprits.front();
      metrics_->HangCulprit(culprit.node, culprit.gpu, culprit.rank);
      // The CLI's one line names the culprit first.
      status = absl::Status(status.code(),
                            absl::StrCat(diagnosis.Summary(),
                                         "; first error: ", status.message()));
    } else {
      metrics_->ClearHangCulprit();
    }
  }
  std::string straggler;  // recorded before the sweep is finished
  if (auto found = core::FindStraggler(merged)) {
    straggler = found->Describe();
    if (found->rank < static_cast<int>(info.rank_nodes.size())) {
      absl::StrAppend(&straggler, " (node ", info.rank_nodes[found->rank], ")");
    }
    FP_LOG_INFO(absl::StrCat("sweep ", sweep_id, " straggler: ", straggler));
    history_->RecordStraggler(sweep_id, straggler).IgnoreError();
  }
  absl::Status finished_ok = history_->FinishSweep(
      sweep_id, outcome, status.message(), diagnosis_json, absl::Now());
  if (!finished_ok.ok()) {
    FP_LOG_ERROR(absl::StrCat("history: ", finished_ok.message()));
  }
  metrics_->SweepFinished(
      info.plan_name,
      absl::StartsWith(trigger, "schedule") ? "schedule" : "cli", outcome,
      duration, absl::Now());
  UpdateAgentMetrics();
  FP_LOG_INFO(absl::StrCat("sweep ", sweep_id, " ", outcome,
                           status.ok() ? "" : ": ",
                           status.ok() ? "" : status.message()));
  v1::SweepEvent finished;
  finished.mutable_finished()->set_sweep_id(sweep_id);
  finished.mutable_finished()->set_status(outcome);
  finished.mutable_finished()->set_error(std::string(status.message()));
  finished.mutable_finished()->set_duration_seconds(duration);
  finished.mutable_finished()->set_straggler(straggler);
  sink(finished);
  timer.Mark("finish");
  FP_LOG_DEBUG(absl::StrCat("sweep ", sweep_id, ": ", timer.Summary()));
  return status;
}

grpc::Status CoordinatorServiceImpl::RunSweep(
    grpc::ServerContext* context, const v1::SweepRequest* request,
    grpc::ServerWriter<v1::SweepEvent>* writer) {
  return common::ToGrpcStatus(ExecuteSweep(
      *request, "cli",
      [writer](const v1::SweepEvent& event) { return writer->Write(event); },
      [context] { return context->IsCancelled(); }));
}

grpc::Status CoordinatorServiceImpl::ListSweeps(
    grpc::ServerContext* context, const v1::ListSweepsRequest* request,
    v1::ListSweepsResponse* response) {
  const int last = request->last() == 0 ? 20 : request->last();
  if (last < 1 || last > 1000) {
    return grpc::Status(
        grpc::StatusCode::INVALID_ARGUMENT,
        absl::StrCat("last: ", last, " is out of range; allowed: 1 to 1000"));
  }
  auto sweeps = history_->ListSweeps(last);
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

grpc::Status CoordinatorServiceImpl::Diagnose(
    grpc::ServerContext* context, const v1::DiagnoseRequest* request,
    v1::DiagnoseResponse* response) {
  // A running (perhaps hung) sweep: read its members now.
  std::vector<v1::AgentInfo> agents;
  std::string sweep_id = request->sweep_id();
  {
    absl::MutexLock lock(&mu_);
    for (const auto& [id, runner] : running_) {
      if (sweep_id.empty() || sweep_id == id) {
        sweep_id = id;
        agents = runner->agents();
        break;
      }
    }
  }
  if (agents.empty()) {
    // A finished sweep: its stored diagnosis, else its members' rings.
    if (sweep_id.empty()) {
      auto recent = history_->ListSweeps(50);
      if (recent.ok()) {
        for (const SweepRecord& r : *recent) {
          if (r.status == kSweepFailed) {
            sweep_id = r.id;
            break;
          }
        }
      }
      if (sweep_id.empty()) {
        return grpc::Status(grpc::StatusCode::NOT_FOUND,
                            "no running or failed sweep to diagnose");
      }
    }
    auto sweep = history_->GetSweep(sweep_id);
    if (!sweep.ok()) return common::ToGrpcStatus(sweep.status());
    response->set_sweep_id(sweep_id);
    if (!sweep->sweep.diagnosis.empty()) {
      response->set_json(sweep->sweep.diagnosis);
      response->set_summary(sweep->sweep.error);
      return grpc::Status::OK;
    }
    auto live = membership_.Select(sweep->sweep.nodes);
    if (!live.ok()) return common::ToGrpcStatus(live.status());
    agents = *live;
  }
  response->set_sweep_id(sweep_id);
  core::Diagnosis d = CollectAndDiagnose(sweep_id, agents, channels_);
  response->set_summary(d.Summary());
  for (const core::Verdict& v : d.culprits) {
    response->add_verdicts(v.Line());
  }
  for (const std::string& e : d.evidence) response->add_evidence(e);
  response->set_json(d.ToJson());
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

absl::StatusOr<std::vector<v1::AgentInfo>> CoordinatorServiceImpl::PlanMembers(
    const std::string& plan) {
  auto it = options_.config.plans.find(plan);
  if (it == options_.config.plans.end()) {
    return absl::InvalidArgumentError(
        absl::StrCat("plan: unknown plan '", plan, "'"));
  }
  return membership_.Select(it->second.nodes);
}

}  // namespace fabricpulse::coordinator
