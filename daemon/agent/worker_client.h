// The agent's view of its workers: the WorkerService calls it makes, as an
// interface with a gRPC implementation (grpc_worker_client.h) and a fake for
// unit tests (tests/fakes/fake_workers.h), and the set of local workers the
// supervisor keeps (LocalWorkers).
//
// Calls are asynchronous: they return at once and report through a callback
// on a transport thread, so the agent holds no thread per rank. Callbacks
// must not block.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "fabricpulse/v1/worker.pb.h"

namespace fabricpulse::agent {

// The events of one WorkerService.RunSweep stream.
struct WorkerSweepCallbacks {
  // Each event, in stream order, never two at once.
  std::function<void(const v1::RankEvent&)> on_event;
  // Exactly once, after the last event.
  std::function<void(const absl::Status&)> on_done;
};

// One running RunSweep stream. Thread-safe.
class WorkerSweepStream {
 public:
  virtual ~WorkerSweepStream() = default;
  // Ends the stream early; on_done follows (CANCELLED unless it had already
  // ended). Idempotent. Dropping the handle does not cancel.
  virtual void Cancel() = 0;
};

// Thread-safe.
class WorkerClient {
 public:
  virtual ~WorkerClient() = default;
  // WorkerService.RunSweep; no deadline of its own (the relay bounds it).
  virtual std::unique_ptr<WorkerSweepStream> RunSweep(
      const v1::WorkerSweepRequest& request,
      WorkerSweepCallbacks callbacks) = 0;
  // WorkerService.Abort, bounded by `timeout`.
  virtual void Abort(const v1::WorkerAbortRequest& request,
                     absl::Duration timeout,
                     std::function<void(absl::Status)> done) = 0;
  // WorkerService.Ping, bounded by `timeout`: OK when the worker answered.
  virtual void Ping(absl::Duration timeout,
                    std::function<void(absl::Status)> done) = 0;
  // WorkerService.GetFlightRecords, bounded by `timeout`.
  virtual void GetFlightRecords(
      const v1::FlightRecordsRequest& request, absl::Duration timeout,
      std::function<void(absl::StatusOr<v1::FlightRecordsResponse>)> done) = 0;
};

// Why the agent kills a worker that did not return after an abort.
enum class KillCause {
  // A rank failed, the sweep lease ran out, or the coordinator aborted after
  // a failure: the worker counts as restarted (a fault).
  kFault,
  // An operator asked for the abort: ending work on request is not a
  // fault, so the respawn is not counted as a restart.
  kAbortRequested,
};

// The node's workers, as the supervisor keeps them. Thread-safe.
class LocalWorkers {
 public:
  virtual ~LocalWorkers() = default;
  virtual int size() const = 0;
  // The client of a ready worker; nullptr while it is not ready (starting,
  // restarting) or `local_index` is out of range.
  virtual std::shared_ptr<WorkerClient> Ready(int local_index) const = 0;
  // Kills a stuck worker so that it is respawned; `reason` is kept for
  // KillReason(); `cause` says whether its respawn counts as a restart.
  // Bounded.
  virtual void Kill(int local_index, const std::string& reason,
                    KillCause cause) = 0;
  // Why the worker was last killed by Kill() ("" when never).
  virtual std::string KillReason(int local_index) const = 0;
  // Every worker's description.
  virtual std::vector<v1::WorkerInfo> Snapshot() const = 0;
  // The backend version the workers report (e.g. "nccl 2.28.9"); empty
  // until one is ready.
  virtual std::string BackendVersion() const = 0;
};

}  // namespace fabricpulse::agent
