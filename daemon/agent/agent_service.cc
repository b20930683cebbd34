#include "daemon/agent/agent_service.h"

#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "daemon/agent/sweep_relay.h"
#include "daemon/agent/worker_fan_out.h"
#include "daemon/common/abort_cause.h"
#include "daemon/common/grpc_status.h"
#include "daemon/core/log.h"
#include "daemon/core/phase_timer.h"
#include "daemon/core/timeout_budget.h"
#include "daemon/security/caller.h"

namespace fabricpulse::agent {
AgentServiceImpl::AgentServiceImpl(AgentIdentity identity,
                                   LocalWorkers* workers, AgentMetrics* metrics,
                                   CoordinatorContact* contact,
                                   GpuBusyProbe* gpu_probe,
                                   const FreeMemoryReader* free_memory,
                                   core::Clock* clock,
                                   MachineTopology* topology)
    : identity_(std::move(identity)),
      workers_(workers),
      contact_(contact),
      metrics_(metrics),
      gpu_probe_(gpu_probe),
      free_memory_(free_memory),
      topology_(topology),
      clock_(clock) {}

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
  const std::string workers_version = workers_->BackendVersion();
  {
    absl::MutexLock lock(&mu_);
    info.set_node_name(identity_.node_name);
    info.set_address(identity_.address);
    info.set_backend(identity_.backend);
    info.set_backend_version(workers_version.empty() ? identity_.backend_version
                                                     : workers_version);
    info.set_running_sweep(running_sweep_);
    info.set_release_idle_after_seconds(
        absl::ToDoubleSeconds(identity_.release_idle_after));
    info.mutable_labels()->insert(identity_.labels.begin(),
                                  identity_.labels.end());
  }
  AddWorkers(info);
  if (topology_ != nullptr) topology_->Annotate(info);
  return info;
}

void AgentServiceImpl::FillHeartbeat(v1::HeartbeatRequest& request) const {
  v1::AgentInfo info;
  AddWorkers(info);
  request.mutable_workers()->Swap(info.mutable_workers());
  if (topology_ != nullptr) topology_->AnnotateHeartbeat(request);
}

void AgentServiceImpl::AddWorkers(v1::AgentInfo& info) const {
  for (const v1::WorkerInfo& w : workers_->Snapshot()) {
    *info.add_workers() = w;
  }
  if (gpu_probe_ != nullptr) gpu_probe_->Annotate(info);
  if (free_memory_ != nullptr) free_memory_->Annotate(info);
}

grpc::Status AgentServiceImpl::Describe(grpc::ServerContext* context,
                                        const v1::DescribeRequest* request,
                                        v1::DescribeResponse* response) {
  *response->mutable_agent() = Info();
  return grpc::Status::OK;
}

grpc::Status AgentServiceImpl::RunSweep(
    grpc::ServerContext* context, const v1::AgentSweepRequest* request,
    grpc::ServerWriter<v1::RankEvent>* writer) {
  core::PhaseTimer timer;
  if (absl::Status admitted = contact_->AdmitEpoch(request->membership_epoch());
      !admitted.ok()) {
    FP_LOG_WARNING(absl::StrCat("sweep ", request->sweep_id(),
                                " refused: ", admitted.message()));
    return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION,
                        std::string(admitted.message()));
  }
  security::Audit(
      *context,
      absl::StrCat("started sweep ", request->sweep_id().substr(0, 64), " on ",
                   request->ranks_size(), " local rank(s)"));
  RememberRanks(*request);
  SetRunning(request->sweep_id(), request->comm_id());
  v1::AgentSweepRequest own = *request;
  if (!identity_.coordinator.empty()) {
    own.set_coordinator(identity_.coordinator);
  }
  SweepRelay relay(own, NodeName(), workers_, contact_, clock_);
  // Unless the sweep allows busy GPUs, it yields to a foreign compute
  // process on its GPUs; the probe polls fast meanwhile.
  const bool yields = gpu_probe_ != nullptr && !request->allow_busy();
  GpuBusyProbe::SweepWatch watch(yields ? gpu_probe_ : nullptr);
  if (yields) {
    relay.YieldWhen([probe = gpu_probe_, mine = SweepWorkers(*request)] {
      return probe->ForeignProcess(mine);
    });
  }
  absl::Status status = relay.Run(
      [&](const v1::RankEvent& event) {
        if (event.has_step() && metrics_ != nullptr) {
          const v1::StepRankEvent& step = event.step();
          metrics_->RankLatency({request->sweep_id(), request->plan(),
                                 request->spec().placement()},
                                step.timing().rank(), step.key(),
                                step.timing().mean_seconds());
        }
        return writer->Write(event);
      },
      [&] {
        const StopCause asked = AbortRequested();
        if (asked != StopCause::kNone) return asked;
        return context->IsCancelled() ? StopCause::kFailure : StopCause::kNone;
      });
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
  return common::ToGrpcStatus(status);
}

std::vector<v1::WorkerInfo> AgentServiceImpl::SweepWorkers(
    const v1::AgentSweepRequest& request) const {
  std::vector<v1::WorkerInfo> out;
  for (const v1::WorkerInfo& w : workers_->Snapshot()) {
    for (const v1::RankAssignment& a : request.ranks()) {
      if (a.local_index() == w.local_index()) {
        out.push_back(w);
        break;
      }
    }
  }
  return out;
}

StopCause AgentServiceImpl::AbortRequested() const {
  absl::MutexLock lock(&mu_);
  if (!abort_requested_) return StopCause::kNone;
  return abort_by_request_ ? StopCause::kRequest : StopCause::kFailure;
}

void AgentServiceImpl::SetRunning(const std::string& sweep_id,
                                  const std::string& comm_id) {
  absl::MutexLock lock(&mu_);
  running_sweep_ = sweep_id;
  running_comm_ = comm_id;
  abort_requested_ = false;
  abort_by_request_ = false;
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
    for (int i = 0; i < workers_->size(); ++i) ranks.emplace_back(i, -1);
  }
  for (auto& r : CollectFlightRecords(*workers_, ranks, request->sweep_id(),
                                      core::kTimeouts.worker_rpc, clock_)) {
    *response->add_ranks() = std::move(r);
  }
  return grpc::Status::OK;
}

grpc::Status AgentServiceImpl::Abort(grpc::ServerContext* context,
                                     const v1::AgentAbortRequest* request,
                                     v1::AgentAbortResponse* response) {
  security::Audit(*context, absl::StrCat("asked to abort communicator ",
                                         request->comm_id().substr(0, 64)));
  {
    absl::MutexLock lock(&mu_);
    if (!running_comm_.empty() && running_comm_ == request->comm_id()) {
      abort_requested_ = true;
      const auto& metadata = context->client_metadata();
      const auto cause = metadata.find(common::kAbortCauseKey);
      abort_by_request_ = cause != metadata.end() &&
                          cause->second == common::kAbortCauseRequest;
    }
  }
  AbortLocalWorkers(*workers_, request->comm_id(), core::kTimeouts.worker_rpc,
                    clock_);
  return grpc::Status::OK;
}

}  // namespace fabricpulse::agent
