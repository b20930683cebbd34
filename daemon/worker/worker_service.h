// WorkerService: one rank. Owns the backend and the cached communicators.
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "absl/synchronization/mutex.h"
#include "daemon/backend/collective_backend.h"
#include "daemon/common/worker_resources.h"
#include "daemon/core/limits.h"
#include "daemon/security/credentials.h"
#include "daemon/worker/communicator_cache.h"
#include "daemon/worker/fault_injection.h"
#include "daemon/worker/flight_recorder.h"
#include "daemon/worker/idle_release.h"
#include "fabricpulse/v1/worker.grpc.pb.h"

namespace fabricpulse::worker {

// Thread-safe; one sweep at a time (a second gets RESOURCE_EXHAUSTED).
class WorkerServiceImpl final : public v1::WorkerService::Service {
 public:
  // `fault` is injected into every sweep (off by default). `creds` (the
  // agent's files) reach the coordinator's rendezvous store: its server must
  // be the coordinator.
  // `resources` bounds what the worker keeps between sweeps.
  WorkerServiceImpl(std::unique_ptr<backend::CollectiveBackend> be,
                    std::shared_ptr<const security::Credentials> creds,
                    LateRankFault fault = {},
                    common::WorkerResources resources = {});

  grpc::Status RunSweep(grpc::ServerContext* context,
                        const v1::WorkerSweepRequest* request,
                        grpc::ServerWriter<v1::RankEvent>* writer) override;
  grpc::Status Abort(grpc::ServerContext* context,
                     const v1::WorkerAbortRequest* request,
                     v1::WorkerAbortResponse* response) override;
  grpc::Status GetFlightRecords(grpc::ServerContext* context,
                                const v1::FlightRecordsRequest* request,
                                v1::FlightRecordsResponse* response) override;
  grpc::Status Ping(grpc::ServerContext* context,
                    const v1::PingRequest* request,
                    v1::PingResponse* response) override;

 private:
  // Finds or creates the communicator; sets *reused and *init_seconds.
  absl::StatusOr<std::shared_ptr<backend::Communicator>> AcquireComm(
      const v1::WorkerSweepRequest& request, absl::Duration init_timeout,
      bool* reused, double* init_seconds);
  absl::Status RunSweepLocked(grpc::ServerContext* context,
                              const v1::WorkerSweepRequest& request,
                              grpc::ServerWriter<v1::RankEvent>* writer);

  std::unique_ptr<backend::CollectiveBackend> backend_;
  const std::shared_ptr<const security::Credentials> creds_;
  const LateRankFault fault_;
  const common::WorkerResources resources_;
  CommunicatorCache cache_{core::kWorkerCommCacheCapacity};
  FlightRecorder recorder_;
  std::atomic<bool> cancelled_{false};

  absl::Mutex mu_;
  bool running_ ABSL_GUARDED_BY(mu_) = false;
  std::string running_comm_id_ ABSL_GUARDED_BY(mu_);
  std::shared_ptr<backend::Communicator> running_comm_ ABSL_GUARDED_BY(mu_);
  // Last: its thread uses the cache and the backend.
  IdleRelease idle_;
};

}  // namespace fabricpulse::worker
