#include "daemon/worker/worker_service.h"

#include <unistd.h>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "daemon/common/grpc_status.h"
#include "daemon/core/log.h"
#include "daemon/core/phase_timer.h"
#include "daemon/worker/grpc_kv_store.h"
#include "daemon/worker/sweep_executor.h"
#include "daemon/worker/worker_sweep_check.h"

namespace fabricpulse::worker {

WorkerServiceImpl::WorkerServiceImpl(
    std::unique_ptr<backend::CollectiveBackend> be,
    std::shared_ptr<const security::Credentials> creds, LateRankFault fault,
    common::WorkerResources resources)
    : backend_(std::move(be)),
      creds_(std::move(creds)),
      fault_(fault),
      resources_(resources),
      idle_(resources.release_idle_after,
            IdleReleaseHooks{
                [this](absl::Time cutoff) { cache_.TakeUsedBefore(cutoff); },
                [this] { return cache_.OldestUse(); },
                [this] { return backend_->ReleaseDevice(); }}) {}

grpc::Status WorkerServiceImpl::RunSweep(
    grpc::ServerContext* context, const v1::WorkerSweepRequest* request,
    grpc::ServerWriter<v1::RankEvent>* writer) {
  {
    absl::MutexLock lock(&mu_);
    if (running_) {
      return grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                          "a sweep is already running on this worker");
    }
    running_ = true;
    running_comm_id_ = request->comm_id();
    cancelled_ = false;
  }
  idle_.SweepStarted();
  absl::Status status = RunSweepLocked(context, *request, writer);
  std::shared_ptr<backend::Communicator> ran;
  {
    absl::MutexLock lock(&mu_);
    running_ = false;
    running_comm_id_.clear();
    ran = std::move(running_comm_);
  }
  if (ran != nullptr) {
    ran->TrimBuffers(resources_.buffer_budget);
    cache_.Touch(request->comm_id());
  }
  ran.reset();
  idle_.SweepEnded();
  if (!status.ok()) {
    FP_LOG_WARNING(absl::StrCat("sweep ", request->sweep_id(),
                                " failed: ", status.ToString()));
  }
  return common::ToGrpcStatus(status);
}

absl::StatusOr<std::shared_ptr<backend::Communicator>>
WorkerServiceImpl::AcquireComm(const v1::WorkerSweepRequest& request,
                               absl::Duration init_timeout, bool* reused,
                               double* init_seconds) {
  *reused = false;
  *init_seconds = 0;
  if (!request.spec().fresh_comm()) {
    if (auto comm = cache_.Find(request.comm_id())) {
      *reused = true;
      return comm;
    }
  }
  cache_.Erase(request.comm_id());
  backend::CommunicatorOptions options;
  options.rank = request.rank();
  options.nranks = request.nranks();
  // A fresh prefix per creation: ranks of a retried or forced-fresh
  // communicator never read keys of an earlier one.
  options.key_prefix = absl::StrCat(request.comm_id(), "/", request.sweep_id());
  options.init_timeout = init_timeout;
  GrpcKeyValueStore store(
      grpc::CreateChannel(request.coordinator(),
                          creds_->Channel({security::Role::kCoordinator, ""})));
  const absl::Time start = absl::Now();
  auto created = backend_->CreateCommunicator(options, &store);
  if (!created.ok()) return created.status();
  *init_seconds = absl::ToDoubleSeconds(absl::Now() - start);
  std::shared_ptr<backend::Communicator> comm = std::move(*created);
  cache_.Put(request.comm_id(), comm);
  return comm;
}

absl::Status WorkerServiceImpl::RunSweepLocked(
    grpc::ServerContext* context, const v1::WorkerSweepRequest& request,
    grpc::ServerWriter<v1::RankEvent>* writer) {
  core::PhaseTimer timer;
  auto checked = CheckWorkerSweep(request, backend_->name());
  if (!checked.ok()) return checked.status();
  const core::SweepSpec& spec = checked->spec;
  const std::vector<core::Step>& steps = checked->steps;

  timer.Mark("validate");
  bool reused = false;
  double init_seconds = 0;
  auto comm = AcquireComm(request, spec.timeout, &reused, &init_seconds);
  timer.Mark("communicator");
  if (!comm.ok()) {
    return absl::Status(
        comm.status().code(),
        absl::StrCat("rank ", request.rank(),
                     " communicator init: ", comm.status().message()));
  }
  {
    absl::MutexLock lock(&mu_);
    running_comm_ = *comm;
  }
  if (cancelled_.load()) (*comm)->Abort();
  v1::RankEvent ready;
  ready.mutable_comm_ready()->set_reused(reused);
  ready.mutable_comm_ready()->set_init_seconds(init_seconds);
  ready.mutable_comm_ready()->set_rank(request.rank());
  if (!writer->Write(ready)) return absl::CancelledError("agent went away");
  timer.Mark("ready");

  absl::Status status = ExecuteSteps(
      **comm, steps, spec, cancelled_,
      [&](const v1::StepRankEvent& result) {
        if (context->IsCancelled()) return false;
        v1::RankEvent event;
        *event.mutable_step() = result;
        const absl::Time write_start = absl::Now();
        const bool written = writer->Write(event);
        timer.Add("writes", absl::Now() - write_start);
        return written;
      },
      StepRecording{&recorder_, request.sweep_id(), request.comm_id()}, fault_);
  if (!status.ok()) {
    // A failed or aborted communicator is retired; the coordinator will
    // name a new one for the next sweep.
    (*comm)->Abort();
    cache_.Erase(request.comm_id());
  }
  timer.Mark("steps");
  FP_LOG_DEBUG(absl::StrCat("sweep ", request.sweep_id(), " rank ",
                            request.rank(), ": ", timer.Summary()));
  return status;
}

grpc::Status WorkerServiceImpl::Abort(grpc::ServerContext* context,
                                      const v1::WorkerAbortRequest* request,
                                      v1::WorkerAbortResponse* response) {
  std::shared_ptr<backend::Communicator> running;
  {
    absl::MutexLock lock(&mu_);
    if (running_ && (request->comm_id().empty() ||
                     request->comm_id() == running_comm_id_)) {
      cancelled_ = true;
      running = running_comm_;
    }
  }
  if (running) running->Abort();
  if (request->comm_id().empty()) {
    cache_.Clear();
  } else {
    cache_.Erase(request->comm_id());
  }
  return grpc::Status::OK;
}

grpc::Status WorkerServiceImpl::GetFlightRecords(
    grpc::ServerContext* context, const v1::FlightRecordsRequest* request,
    v1::FlightRecordsResponse* response) {
  int rank = -1;
  for (auto& r : recorder_.Snapshot(request->sweep_id(), &rank)) {
    *response->add_records() = std::move(r);
  }
  response->set_rank(rank);
  return grpc::Status::OK;
}

grpc::Status WorkerServiceImpl::Ping(grpc::ServerContext* context,
                                     const v1::PingRequest* request,
                                     v1::PingResponse* response) {
  response->set_backend(backend_->name());
  response->set_backend_version(backend_->version());
  response->set_pid(getpid());
  return grpc::Status::OK;
}

}  // namespace fabricpulse::worker
