// AgentService: the coordinator's handle on one node's workers.
#pragma once

#include <deque>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "daemon/agent/agent_metrics.h"
#include "daemon/agent/coordinator_contact.h"
#include "daemon/agent/free_memory.h"
#include "daemon/agent/gpu_busy_probe.h"
#include "daemon/agent/machine_topology.h"
#include "daemon/agent/sweep_relay.h"
#include "daemon/agent/worker_client.h"
#include "daemon/core/agent_labels.h"
#include "daemon/core/clock.h"
#include "fabricpulse/v1/agent.grpc.pb.h"

namespace fabricpulse::agent {

struct AgentIdentity {
  std::string node_name;
  std::string address;  // advertised gRPC address
  std::string backend;
  // Reported until a worker is ready and reports its own version (e.g.
  // "nccl 2.28.9"): the agent does not link the backend itself.
  std::string backend_version;
  // The agent's own --coordinator: its workers use it for the rendezvous,
  // whatever address a request names.
  std::string coordinator;
  // --release-idle-after (AgentInfo.release_idle_after_seconds).
  absl::Duration release_idle_after = absl::ZeroDuration();
  core::AgentLabels labels;  // --labels
};

// Thread-safe.
class AgentServiceImpl final : public v1::AgentService::Service {
 public:
  // `workers`, `contact` and `clock` must outlive this object; so must
  // `metrics`
  // unless it is null (no metrics). With metrics, RunSweep sets each relayed
  // rank's fabricpulse_agent_rank_latency_seconds. `contact` admits sweeps
  // by membership epoch and ends those whose lease expires. `gpu_probe`
  // (nullable: no busy-GPU check) marks busy GPUs in Info() and, while a
  // sweep that does not allow busy GPUs runs, polls fast and makes it yield
  // to a foreign compute process on its GPUs (SweepRelay::YieldWhen); it
  // outlives this object. `free_memory` (nullable: no figures) sets each
  // worker's free memory; it outlives this object too. `topology`
  // (nullable: none reported) adds the GPUs' model, bus id and NVLink peers
  // and the machine's NICs; it outlives this object too.
  AgentServiceImpl(AgentIdentity identity, LocalWorkers* workers,
                   AgentMetrics* metrics, CoordinatorContact* contact,
                   GpuBusyProbe* gpu_probe = nullptr,
                   const FreeMemoryReader* free_memory = nullptr,
                   core::Clock* clock = core::RealClock::Get(),
                   MachineTopology* topology = nullptr);

  // The agent's description (busy GPUs marked, each worker's free memory,
  // the backend version its workers report once one is ready), as Describe
  // and registration report it.
  v1::AgentInfo Info() const;
  // Adds what a heartbeat carries: the workers as Info() describes them and
  // the machine's NICs (MachineTopology, re-read when a refresh is due).
  void FillHeartbeat(v1::HeartbeatRequest& request) const;
  // Set once the gRPC port is known (before registration starts).
  void SetAddress(const std::string& address);

  grpc::Status Describe(grpc::ServerContext* context,
                        const v1::DescribeRequest* request,
                        v1::DescribeResponse* response) override;
  grpc::Status RunSweep(grpc::ServerContext* context,
                        const v1::AgentSweepRequest* request,
                        grpc::ServerWriter<v1::RankEvent>* writer) override;
  grpc::Status GetFlightRecords(
      grpc::ServerContext* context,
      const v1::AgentFlightRecordsRequest* request,
      v1::AgentFlightRecordsResponse* response) override;
  grpc::Status Abort(grpc::ServerContext* context,
                     const v1::AgentAbortRequest* request,
                     v1::AgentAbortResponse* response) override;

 private:
  std::string NodeName() const;
  // Adds the workers as the supervisor has them, busy GPUs marked and
  // free memory set.
  void AddWorkers(v1::AgentInfo& info) const;
  // Keeps which rank each local worker had in recent sweeps, so that a
  // worker that cannot answer is still named by its rank.
  void RememberRanks(const v1::AgentSweepRequest& request);
  // The workers that run `request`'s local ranks, as the supervisor has
  // them now (their GPUs).
  std::vector<v1::WorkerInfo> SweepWorkers(
      const v1::AgentSweepRequest& request) const;
  // Whether the coordinator asked to abort the running sweep, and why.
  StopCause AbortRequested() const;
  // Marks (or clears, with "") the sweep this agent runs.
  void SetRunning(const std::string& sweep_id, const std::string& comm_id);

  mutable absl::Mutex mu_;
  AgentIdentity identity_ ABSL_GUARDED_BY(mu_);
  std::deque<std::pair<std::string, std::vector<std::pair<int, int>>>>
      recent_ranks_ ABSL_GUARDED_BY(mu_);
  std::string running_sweep_ ABSL_GUARDED_BY(mu_);
  std::string running_comm_ ABSL_GUARDED_BY(mu_);
  // The coordinator asked to abort running_comm_: its workers get the same
  // grace as on a local failure, then are killed.
  bool abort_requested_ ABSL_GUARDED_BY(mu_) = false;
  // The abort's cause was an operator's request (abort_cause.h metadata).
  bool abort_by_request_ ABSL_GUARDED_BY(mu_) = false;
  LocalWorkers* const workers_;
  CoordinatorContact* const contact_;
  AgentMetrics* const metrics_;                // nullable
  GpuBusyProbe* const gpu_probe_;              // nullable
  const FreeMemoryReader* const free_memory_;  // nullable
  MachineTopology* const topology_;            // nullable
  core::Clock* const clock_;
};

}  // namespace fabricpulse::agent
