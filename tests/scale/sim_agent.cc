#include "tests/scale/sim_agent.h"

#include <unistd.h>

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "daemon/common/spec_convert.h"

namespace fabricpulse::scale {
namespace {

std::vector<v1::WorkerInfo> MakeWorkers(const SimAgentConfig& config) {
  // Stable for the process's life, new on every start, as a real worker's.
  const std::string start =
      absl::StrCat(absl::Hex(absl::ToUnixNanos(absl::Now())));
  std::vector<v1::WorkerInfo> workers;
  for (int i = 0; i < config.ranks; ++i) {
    v1::WorkerInfo w;
    w.set_local_index(i);
    w.set_incarnation(
        absl::StrCat(config.node_name, "-w", i, "-", getpid(), "-", start));
    w.set_ready(true);
    w.set_pid(getpid());
    w.set_gpu(config.gpus ? i : -1);
    workers.push_back(w);
  }
  return workers;
}

}  // namespace

SimAgent::SimAgent(SimAgentConfig config)
    : config_(std::move(config)),
      log_(config_.ranks),
      workers_(MakeWorkers(config_)) {}

SimAgent::~SimAgent() { Shutdown(); }

absl::Status SimAgent::Start() {
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0",
                           config_.tls != nullptr
                               ? config_.tls->server
                               : grpc::InsecureServerCredentials(),
                           &port);
  builder.RegisterService(this);
  server_ = builder.BuildAndStart();
  if (server_ == nullptr || port == 0) {
    return absl::UnavailableError(absl::StrCat(
        "node ", config_.node_name, ": cannot listen on 127.0.0.1:0"));
  }
  absl::MutexLock lock(&mu_);
  address_ = absl::StrCat("127.0.0.1:", port);
  return absl::OkStatus();
}

void SimAgent::Shutdown(absl::Duration grace) {
  {
    absl::MutexLock lock(&mu_);
    if (shut_down_) return;
    shut_down_ = true;
    for (auto& [reactor, sweep] : running_) reactor->Abort();
  }
  if (server_ != nullptr) {
    server_->Shutdown(absl::ToChronoTime(absl::Now() + grace));
  }
}

std::string SimAgent::address() const {
  absl::MutexLock lock(&mu_);
  return address_;
}

int SimAgent::running_sweeps() const {
  absl::MutexLock lock(&mu_);
  return static_cast<int>(running_.size());
}

std::vector<v1::WorkerInfo> SimAgent::workers() const {
  absl::MutexLock lock(&mu_);
  return workers_;
}

bool SimAgent::SetGpusBusy(bool busy) {
  if (!config_.gpus) return false;
  absl::MutexLock lock(&mu_);
  bool changed = false;
  for (v1::WorkerInfo& w : workers_) {
    changed = changed || w.gpu_busy() != busy;
    w.set_gpu_busy(busy);
    w.set_gpu_other_processes(busy ? 1 : 0);
  }
  return changed;
}

std::shared_ptr<grpc::ChannelCredentials> SimAgent::CoordinatorCredentials()
    const {
  return config_.tls != nullptr ? config_.tls->to_coordinator
                                : grpc::InsecureChannelCredentials();
}

v1::AgentInfo SimAgent::Info() const {
  v1::AgentInfo info;
  info.set_node_name(config_.node_name);
  info.set_backend(kSimBackend);
  info.set_backend_version(kSimBackendVersion);
  absl::MutexLock lock(&mu_);
  for (const v1::WorkerInfo& w : workers_) *info.add_workers() = w;
  info.set_address(address_);
  if (!running_.empty()) info.set_running_sweep(running_.begin()->second);
  return info;
}

void SimAgent::Registered(uint64_t epoch) {
  absl::MutexLock lock(&mu_);
  epoch_ = epoch;
}

void SimAgent::HeartbeatAnswered(uint64_t epoch) {
  absl::MutexLock lock(&mu_);
  epoch_ = std::max(epoch_, epoch);
}

grpc::ServerUnaryReactor* SimAgent::Describe(
    grpc::CallbackServerContext* context, const v1::DescribeRequest* request,
    v1::DescribeResponse* response) {
  *response->mutable_agent() = Info();
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  reactor->Finish(grpc::Status::OK);
  return reactor;
}

grpc::Status SimAgent::Prepare(const v1::AgentSweepRequest& request,
                               SweepSetup* setup) {
  setup->sweep_id = request.sweep_id();
  setup->comm_id = request.comm_id();
  setup->nranks = request.nranks();
  setup->fault = config_.fault;
  setup->link = config_.link;
  setup->pace = config_.pace;
  setup->steps = std::make_shared<const std::vector<core::Step>>();
  if (request.ranks_size() == 0) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        "ranks: no local rank assigned");
  }
  for (const v1::RankAssignment& a : request.ranks()) {
    if (a.local_index() < 0 || a.local_index() >= config_.ranks) {
      return grpc::Status(
          grpc::StatusCode::INVALID_ARGUMENT,
          absl::StrCat("ranks: unknown local index ", a.local_index(),
                       " on node ", config_.node_name, " (", config_.ranks,
                       " worker(s))"));
    }
    if (a.rank() < 0 || a.rank() >= request.nranks()) {
      return grpc::Status(
          grpc::StatusCode::INVALID_ARGUMENT,
          absl::StrCat("ranks: rank ", a.rank(), " is outside 0..",
                       request.nranks() - 1));
    }
    setup->ranks.emplace_back(a.local_index(), a.rank());
  }
  const core::SweepSpec spec = common::SpecFromProto(request.spec());
  auto steps = core::Expand(spec, request.nranks());
  if (!steps.ok()) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        std::string(steps.status().message()));
  }
  setup->steps =
      std::make_shared<const std::vector<core::Step>>(*std::move(steps));
  setup->iterations = std::max(1, spec.warmup_iters + spec.iters);
  if (config_.sweep_time > absl::ZeroDuration() && !setup->steps->empty()) {
    setup->step_time =
        config_.sweep_time / static_cast<double>(setup->steps->size());
  }
  absl::MutexLock lock(&mu_);
  if (request.membership_epoch() < epoch_) {
    return grpc::Status(
        grpc::StatusCode::FAILED_PRECONDITION,
        absl::StrCat("stale membership epoch ", request.membership_epoch(),
                     " (this agent has seen ", epoch_,
                     "): membership changed since the sweep was planned; "
                     "retry"));
  }
  epoch_ = request.membership_epoch();
  setup->reused = !spec.fresh_comm && request.comm_id() == last_comm_;
  last_comm_ = request.comm_id();
  return grpc::Status::OK;
}

grpc::ServerWriteReactor<v1::RankEvent>* SimAgent::RunSweep(
    grpc::CallbackServerContext* context,
    const v1::AgentSweepRequest* request) {
  SweepSetup setup;
  grpc::Status refusal = Prepare(*request, &setup);
  if (refusal.ok()) log_.Begin(setup.sweep_id, setup.steps, setup.ranks);
  auto* reactor = new SimSweepReactor(std::move(setup), refusal, &log_,
                                      [this](SimSweepReactor* done) {
                                        absl::MutexLock lock(&mu_);
                                        running_.erase(done);
                                      });
  {
    absl::MutexLock lock(&mu_);
    if (shut_down_) {
      reactor->Abort();
    } else {
      running_[reactor] = request->sweep_id();
    }
  }
  reactor->Start();
  return reactor;
}

grpc::ServerUnaryReactor* SimAgent::Abort(grpc::CallbackServerContext* context,
                                          const v1::AgentAbortRequest* request,
                                          v1::AgentAbortResponse* response) {
  {
    absl::MutexLock lock(&mu_);
    for (auto& [reactor, sweep] : running_) {
      if (reactor->comm_id() == request->comm_id()) reactor->Abort();
    }
  }
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  reactor->Finish(grpc::Status::OK);
  return reactor;
}

grpc::ServerUnaryReactor* SimAgent::GetFlightRecords(
    grpc::CallbackServerContext* context,
    const v1::AgentFlightRecordsRequest* request,
    v1::AgentFlightRecordsResponse* response) {
  *response = log_.Records(request->sweep_id(), /*gpu=*/-1);
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  reactor->Finish(grpc::Status::OK);
  return reactor;
}

}  // namespace fabricpulse::scale
