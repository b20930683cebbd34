// One simulated agent: serves the real AgentService (Describe, RunSweep,
// Abort, GetFlightRecords) on its own 127.0.0.1:0 gRPC server with the
// callback API, so an idle or sweeping agent holds no thread. Its workers
// are simulated: always ready, stable incarnations, CPU ranks (gpu -1).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "fabricpulse/v1/agent.grpc.pb.h"
#include "tests/scale/fault_plan.h"
#include "tests/scale/link_model.h"
#include "tests/scale/sim_flight_log.h"
#include "tests/scale/sim_sweep_reactor.h"
#include "tests/scale/sim_tls.h"

namespace fabricpulse::scale {

inline constexpr char kSimBackend[] = "gloo";
inline constexpr char kSimBackendVersion[] = "fleet-sim";

struct SimAgentConfig {
  std::string node_name;
  int ranks = 1;  // simulated workers, >= 1
  NodeFault fault;
  LinkModel link;
  bool pace = false;  // see SweepSetup::pace
  // > 0: every sweep takes this long, its steps sharing it evenly.
  absl::Duration sweep_time = absl::ZeroDuration();
  // Workers are GPU ranks (gpu = local index), whose GPUs SetGpusBusy can
  // mark busy; otherwise CPU ranks (gpu -1).
  bool gpus = false;
  // Its mutual TLS (SimCertAuthority::Issue); null: plaintext.
  std::shared_ptr<const SimAgentTls> tls;
};

// Thread-safe.
class SimAgent final : public v1::AgentService::CallbackService {
 public:
  explicit SimAgent(SimAgentConfig config);
  ~SimAgent() override;  // Shutdown()

  // Listens on 127.0.0.1:0. Errors: UNAVAILABLE when the server cannot
  // listen.
  absl::Status Start();
  // Aborts running sweeps, then stops the server (bounded by `grace`, after
  // which calls are cancelled). Idempotent.
  void Shutdown(absl::Duration grace = absl::Seconds(2));

  const std::string& node_name() const { return config_.node_name; }
  // 127.0.0.1:PORT once started.
  std::string address() const;
  // The description Register and Describe send.
  v1::AgentInfo Info() const;
  std::vector<v1::WorkerInfo> workers() const;
  // Marks every GPU of this agent busy (one other compute process) or
  // free, as a real agent's busy probe reports it; returns whether that
  // changed anything (the caller then sends a heartbeat at once, as the
  // real agent does). No-op without `gpus`.
  bool SetGpusBusy(bool busy);
  // Credentials of the agent's channel to the coordinator.
  std::shared_ptr<grpc::ChannelCredentials> CoordinatorCredentials() const;
  int running_sweeps() const;

  // The coordinator's membership epoch, as the real agent tracks it: a
  // registration answer sets it (also lower: a restarted coordinator), a
  // heartbeat answer raises it. RunSweep refuses an older epoch.
  void Registered(uint64_t epoch);
  void HeartbeatAnswered(uint64_t epoch);

  grpc::ServerUnaryReactor* Describe(grpc::CallbackServerContext* context,
                                     const v1::DescribeRequest* request,
                                     v1::DescribeResponse* response) override;
  grpc::ServerWriteReactor<v1::RankEvent>* RunSweep(
      grpc::CallbackServerContext* context,
      const v1::AgentSweepRequest* request) override;
  grpc::ServerUnaryReactor* Abort(grpc::CallbackServerContext* context,
                                  const v1::AgentAbortRequest* request,
                                  v1::AgentAbortResponse* response) override;
  grpc::ServerUnaryReactor* GetFlightRecords(
      grpc::CallbackServerContext* context,
      const v1::AgentFlightRecordsRequest* request,
      v1::AgentFlightRecordsResponse* response) override;

 private:
  // The request checked and expanded; a non-OK status refuses it.
  grpc::Status Prepare(const v1::AgentSweepRequest& request, SweepSetup* setup);

  const SimAgentConfig config_;
  SimFlightLog log_;
  std::unique_ptr<grpc::Server> server_;
  mutable absl::Mutex mu_;
  std::vector<v1::WorkerInfo> workers_ ABSL_GUARDED_BY(mu_);
  std::string address_ ABSL_GUARDED_BY(mu_);
  uint64_t epoch_ ABSL_GUARDED_BY(mu_) = 0;
  std::string last_comm_ ABSL_GUARDED_BY(mu_);
  bool shut_down_ ABSL_GUARDED_BY(mu_) = false;
  // Running sweeps; a reactor leaves in its OnDone (under mu_), so a pointer
  // read under mu_ is alive.
  std::map<SimSweepReactor*, std::string> running_ ABSL_GUARDED_BY(mu_);
};

}  // namespace fabricpulse::scale
