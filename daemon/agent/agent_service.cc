#include "daemon/agent/agent_service.h"

#include <memory>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "daemon/common/spec_convert.h"
#include "daemon/core/log.h"
#include "daemon/core/op_traits.h"
#include "daemon/core/phase_timer.h"
#include "daemon/core/sweep_spec.h"
#include "fabricpulse/v1/worker.grpc.pb.h"

namespace fabricpulse::agent {
namespace {

constexpr absl::Duration kAbortRpcTimeout = absl::Seconds(1);
constexpr absl::Duration kRecordsRpcTimeout = absl::Seconds(1);
constexpr absl::Duration kStuckGrace = absl::Seconds(2);
constexpr absl::Duration kCancelPollInterval = absl::Milliseconds(100);
constexpr absl::Duration kDefaultSweepLease = absl::Seconds(5);

// Shared state of one relayed sweep: one thread per local rank writes into
// the coordinator's stream under the mutex.
struct Relay {
  absl::Mutex mu;
  grpc::ServerWriter<v1::AgentSweepEvent>* writer;
  int running ABSL_GUARDED_BY(mu) = 0;
  std::vector<bool> done ABSL_GUARDED_BY(mu);
  grpc::Status first_error ABSL_GUARDED_BY(mu);
  bool failed ABSL_GUARDED_BY(mu) = false;
  std::vector<std::unique_ptr<grpc::ClientContext>> contexts;
};

}  // namespace

AgentServiceImpl::AgentServiceImpl(AgentIdentity identity,
                                   WorkerSupervisor* supervisor,
                                   AgentMetrics* metrics,
                                   CoordinatorContact* contact,
                                   const GpuBusyProbe* gpu_probe)
    : identity_(std::move(identity)),
      supervisor_(supervisor),
      contact_(contact),
      metrics_(metrics),
      gpu_probe_(gpu_probe) {}

std::string AgentServiceImpl::NodeName() const {
  absl::MutexLock lock(&mu_);
  return identity_.node_name;
}

void AgentServiceImpl::SetAddress(const std::string& address) {
  absl::MutexLock lock(&mu_);
  identity_.address = address;
}

v1::AgentInfo AgentServiceImpl::Info() const {
  v1::AgentInfo info;
  const std::string workers_version = supervisor_->BackendVersion();
  {
    absl::MutexLock lock(&mu_);
    info.set_node_name(identity_.node_name);
    info.set_address(identity_.address);
    info.set_backend(identity_.backend);
    info.set_backend_version(workers_version.empty() ? identity_.backend_version
                                                     : workers_version);
    info.set_running_sweep(running_sweep_);
  }
  for (const v1::WorkerInfo& w : supervisor_->Snapshot()) {
    *info.add_workers() = w;
  }
  if (gpu_probe_ != nullptr) gpu_probe_->Annotate(info);
  return info;
}

grpc::Status AgentServiceImpl::Describe(grpc::ServerContext* context,
                                        const v1::DescribeRequest* request,
                                        v1::DescribeResponse* response) {
  *response->mutable_agent() = Info();
  return grpc::Status::OK;
}

grpc::Status AgentServiceImpl::RunSweep(
    grpc::ServerContext* context, const v1::AgentSweepRequest* request,
    grpc::ServerWriter<v1::AgentSweepEvent>* writer) {
  core::PhaseTimer timer;
  const absl::Time arrived = absl::Now();
  const absl::Duration lease = request->lease_seconds() > 0
                                   ? absl::Seconds(request->lease_seconds())
                                   : kDefaultSweepLease;
  if (absl::Status admitted = contact_->AdmitEpoch(request->membership_epoch());
      !admitted.ok()) {
    FP_LOG_WARNING(absl::StrCat("sweep ", request->sweep_id(),
                                " refused: ", admitted.message()));
    return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION,
                        std::string(admitted.message()));
  }
  struct Target {
    int rank;
    int local_index;
    std::shared_ptr<grpc::Channel> channel;
  };
  std::vector<Target> targets;
  for (const v1::RankAssignment& a : request->ranks()) {
    std::string incarnation;
    auto channel = supervisor_->ReadyChannel(a.local_index(), &incarnation);
    if (channel == nullptr) {
      return grpc::Status(
          grpc::StatusCode::UNAVAILABLE,
          absl::StrCat("node ", NodeName(), " worker ", a.local_index(),
                       " (rank ", a.rank(),
                       ") is not ready (starting or restarting)"));
    }
    targets.push_back({a.rank(), a.local_index(), channel});
  }
  RememberRanks(*request);
  {
    absl::MutexLock lock(&mu_);
    running_sweep_ = request->sweep_id();
    running_comm_ = request->comm_id();
    abort_requested_ = false;
  }

  // The workers' step events carry only the step index: expand the spec as
  // the workers do to label each rank's latency with its op and size. A spec
  // that does not expand is rejected by the workers; no latency then.
  std::vector<core::Step> steps;
  if (metrics_ != nullptr) {
    auto expanded =
        core::Expand(common::SpecFromProto(request->spec()), request->nranks());
    if (expanded.ok()) steps = *std::move(expanded);
  }

  Relay relay;
  relay.writer = writer;
  std::vector<std::thread> threads;
  for (size_t i = 0; i < targets.size(); ++i) {
    relay.contexts.push_back(std::make_unique<grpc::ClientContext>());
  }
  {
    absl::MutexLock lock(&relay.mu);
    relay.running = static_cast<int>(targets.size());
    relay.done.assign(targets.size(), false);
  }
  for (size_t i = 0; i < targets.size(); ++i) {
    threads.emplace_back([&, i] {
      const Target& target = targets[i];
      v1::WorkerSweepRequest wreq;
      wreq.set_sweep_id(request->sweep_id());
      wreq.set_comm_id(request->comm_id());
      wreq.set_rank(target.rank);
      wreq.set_nranks(request->nranks());
      *wreq.mutable_spec() = request->spec();
      wreq.set_coordinator(request->coordinator());
      auto stub = v1::WorkerService::NewStub(target.channel);
      auto reader = stub->RunSweep(relay.contexts[i].get(), wreq);
      v1::WorkerSweepEvent event;
      while (reader->Read(&event)) {
        v1::AgentSweepEvent out;
        if (event.has_comm_ready()) {
          out.mutable_comm_ready()->set_rank(target.rank);
          out.mutable_comm_ready()->set_reused(event.comm_ready().reused());
          out.mutable_comm_ready()->set_init_seconds(
              event.comm_ready().init_seconds());
        } else {
          const int index = event.step().step_index();
          out.mutable_step()->set_step_index(index);
          *out.mutable_step()->mutable_timing() = event.step().timing();
          if (index >= 0 && index < static_cast<int>(steps.size())) {
            metrics_->RankLatency(
                target.rank, std::string(core::OpName(steps[index].op)),
                steps[index].bytes, event.step().timing().mean_seconds());
          }
        }
        absl::MutexLock lock(&relay.mu);
        if (!relay.failed) relay.writer->Write(out);
      }
      grpc::Status status = reader->Finish();
      absl::MutexLock lock(&relay.mu);
      relay.running--;
      relay.done[i] = true;
      if (!status.ok() && !relay.failed) {
        relay.failed = true;
        std::string message = status.error_message();
        if (status.error_code() == grpc::StatusCode::UNAVAILABLE) {
          message = absl::StrCat("rank ", target.rank, " on node ", NodeName(),
                                 ": worker unreachable or died: ", message);
        }
        relay.first_error = grpc::Status(status.error_code(), message);
      }
    });
  }

  // Wait for the ranks; propagate the coordinator's cancellation and a
  // local rank's failure to the other local ranks.
  // A worker that has not returned within kStuckGrace of the abort is
  // stopped or stuck inside the library: it is killed and respawned, so the
  // agent never hangs and the GPU is freed.
  bool aborted = false, killed = false;
  absl::Time aborted_at = absl::InfiniteFuture();
  while (true) {
    absl::MutexLock lock(&relay.mu);
    auto done = [&relay]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(relay.mu) {
      return relay.running == 0;
    };
    relay.mu.AwaitWithTimeout(absl::Condition(&done), kCancelPollInterval);
    if (relay.running == 0) break;
    if (!aborted && !relay.failed) {
      absl::Status held = contact_->CheckLease(request->sweep_id(), arrived,
                                               lease, absl::Now());
      if (!held.ok()) {
        FP_LOG_WARNING(absl::StrCat("sweep ", request->sweep_id(), " on node ",
                                    NodeName(), ": ", held.message(),
                                    "; aborting its workers"));
        relay.failed = true;
        relay.first_error = grpc::Status(grpc::StatusCode::UNAVAILABLE,
                                         std::string(held.message()));
      }
    }
    if (!aborted &&
        (relay.failed || context->IsCancelled() || AbortRequested())) {
      aborted = true;
      aborted_at = absl::Now();
      relay.mu.Unlock();
      AbortWorkers(request->comm_id());
      relay.mu.Lock();
    }
    if (aborted && !killed && absl::Now() - aborted_at > kStuckGrace) {
      killed = true;
      std::vector<size_t> stuck;
      for (size_t i = 0; i < targets.size(); ++i) {
        if (!relay.done[i]) stuck.push_back(i);
      }
      relay.mu.Unlock();
      for (size_t i : stuck) {
        relay.contexts[i]->TryCancel();
        supervisor_->Kill(
            targets[i].local_index,
            absl::StrCat("rank ", targets[i].rank, " did not return within ",
                         absl::FormatDuration(kStuckGrace),
                         " of the abort (stopped or stuck): killed and "
                         "respawned"));
      }
      relay.mu.Lock();
    }
  }
  for (std::thread& t : threads) t.join();
  timer.Mark("relay");
  FP_LOG_DEBUG(
      absl::StrCat("sweep ", request->sweep_id(), ": ", timer.Summary()));
  {
    absl::MutexLock lock(&mu_);
    if (running_sweep_ == request->sweep_id()) {
      running_sweep_.clear();
      running_comm_.clear();
    }
  }
  absl::MutexLock lock(&relay.mu);
  if (relay.failed) return relay.first_error;
  if (context->IsCancelled()) {
    return grpc::Status(grpc::StatusCode::CANCELLED, "sweep cancelled");
  }
  return grpc::Status::OK;
}

bool AgentServiceImpl::AbortRequested() const {
  absl::MutexLock lock(&mu_);
  return abort_requested_;
}

void AgentServiceImpl::AbortWorkers(const std::string& comm_id) {
  // In parallel and bounded: a stopped worker must not delay the others.
  std::vector<std::thread> threads;
  for (int i = 0; i < supervisor_->size(); ++i) {
    std::string incarnation;
    auto channel = supervisor_->ReadyChannel(i, &incarnation);
    if (channel == nullptr) continue;
    threads.emplace_back([channel, comm_id, i] {
      grpc::ClientContext ctx;
      ctx.set_deadline(absl::ToChronoTime(absl::Now() + kAbortRpcTimeout));
      v1::WorkerAbortRequest req;
      req.set_comm_id(comm_id);
      v1::WorkerAbortResponse resp;
      grpc::Status status =
          v1::WorkerService::NewStub(channel)->Abort(&ctx, req, &resp);
      if (!status.ok()) {
        FP_LOG_WARNING(
            absl::StrCat("worker ", i, " abort: ", status.error_message()));
      }
    });
  }
  for (std::thread& t : threads) t.join();
}

void AgentServiceImpl::RememberRanks(const v1::AgentSweepRequest& request) {
  absl::MutexLock lock(&mu_);
  std::vector<std::pair<int, int>> ranks;
  for (const auto& a : request.ranks()) {
    ranks.emplace_back(a.local_index(), a.rank());
  }
  recent_ranks_.emplace_back(request.sweep_id(), std::move(ranks));
  while (recent_ranks_.size() > 16) recent_ranks_.pop_front();
}

grpc::Status AgentServiceImpl::GetFlightRecords(
    grpc::ServerContext* context, const v1::AgentFlightRecordsRequest* request,
    v1::AgentFlightRecordsResponse* response) {
  std::vector<std::pair<int, int>> ranks;  // local index, rank
  {
    absl::MutexLock lock(&mu_);
    for (const auto& [sweep, r] : recent_ranks_) {
      if (sweep == request->sweep_id()) ranks = r;
    }
  }
  if (ranks.empty()) {
    for (int i = 0; i < supervisor_->size(); ++i) ranks.emplace_back(i, -1);
  }
  const std::vector<v1::WorkerInfo> workers = supervisor_->Snapshot();
  std::vector<v1::RankFlightRecords> out(ranks.size());
  std::vector<std::thread> threads;
  for (size_t k = 0; k < ranks.size(); ++k) {
    const auto [local, rank] = ranks[k];
    v1::RankFlightRecords& r = out[k];
    r.set_rank(rank);
    r.set_local_index(local);
    if (local >= 0 && local < static_cast<int>(workers.size())) {
      r.set_gpu(workers[local].gpu());
    }
    std::string incarnation;
    auto channel = supervisor_->ReadyChannel(local, &incarnation);
    if (channel == nullptr) {
      const std::string killed = supervisor_->KillReason(local);
      r.set_reachable(false);
      r.set_unreachable_reason(
          killed.empty() ? "worker not running (died; restarting)" : killed);
      continue;
    }
    threads.emplace_back([&r, channel, request, this, local] {
      grpc::ClientContext ctx;
      ctx.set_deadline(absl::ToChronoTime(absl::Now() + kRecordsRpcTimeout));
      v1::FlightRecordsRequest req;
      req.set_sweep_id(request->sweep_id());
      v1::FlightRecordsResponse resp;
      grpc::Status status =
          v1::WorkerService::NewStub(channel)->GetFlightRecords(&ctx, req,
                                                                &resp);
      if (!status.ok()) {
        r.set_reachable(false);
        r.set_unreachable_reason(
            absl::StrCat("worker ", local, " did not answer within ",
                         absl::FormatDuration(kRecordsRpcTimeout),
                         " (stopped or hung): ", status.error_message()));
        return;
      }
      r.set_reachable(true);
      if (r.rank() < 0) r.set_rank(resp.rank());
      for (const auto& rec : resp.records()) *r.add_records() = rec;
    });
  }
  for (std::thread& t : threads) t.join();
  for (auto& r : out) *response->add_ranks() = std::move(r);
  return grpc::Status::OK;
}

grpc::Status AgentServiceImpl::Abort(grpc::ServerContext* context,
                                     const v1::AgentAbortRequest* request,
                                     v1::AgentAbortResponse* response) {
  {
    absl::MutexLock lock(&mu_);
    if (!running_comm_.empty() && running_comm_ == request->comm_id()) {
      abort_requested_ = true;
    }
  }
  AbortWorkers(request->comm_id());
  return grpc::Status::OK;
}

}  // namespace fabricpulse::agent
