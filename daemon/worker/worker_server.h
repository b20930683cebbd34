// The worker as one object: its configuration, the backend it runs and the
// WorkerService on the agent's Unix socket, started together and shut down
// in order. worker_main.cc only parses flags and waits for a signal.
//
// The socket is the worker's own (not gRPC's `unix:` listener): mode 0600
// from the moment it exists, in a folder that must be 0700 and owned by
// this uid, and every connection's SO_PEERCRED must be this worker's
// parent, the agent (same uid, the pid that spawned it, still alive);
// others are closed and logged (rate-limited) before gRPC sees them.
#pragma once

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "daemon/common/peer_checked_listener.h"
#include "daemon/common/worker_resources.h"
#include "daemon/worker/backend_factory.h"
#include "daemon/worker/worker_service.h"
#include "grpcpp/grpcpp.h"

namespace fabricpulse::worker {

struct WorkerConfig {
  std::string socket;     // Unix socket path the agent chose
  BackendChoice backend;  // name, Gloo host, GPU, memory fraction
  int local_index = 0;    // the worker's index on its agent (logs)
  // Fault injection, "" (off) or RANK:DURATION (see LateRankFault).
  std::string fault_late_rank;
  // The agent's TLS files (or --insecure) for the rendezvous store.
  security::TlsOptions tls;
  // --buffer-budget, --release-idle-after (as the agent passes them).
  common::WorkerResourceFlags resources;

  // Errors: INVALID_ARGUMENT naming the flag and what is allowed. The
  // backend's own fields are checked where the backend is built
  // (MakeBackend), which names them the same way.
  absl::Status Validate() const;
};

// Thread-safe.
class WorkerServer {
 public:
  // Validates `config`, builds the backend and serves WorkerService on
  // `config.socket` (replacing a stale socket file) to the parent process
  // only. Errors: INVALID_ARGUMENT a bad flag; FAILED_PRECONDITION the
  // backend cannot run here (not built in, no GPU), or the socket's folder
  // is not private (naming it); UNAVAILABLE the socket cannot be served.
  static absl::StatusOr<std::unique_ptr<WorkerServer>> Start(
      const WorkerConfig& config);
  ~WorkerServer();  // Shutdown(2 s)

  // Stops accepting and removes the socket file (unless a newer one has
  // replaced it), then streams in flight get until `deadline` and are
  // cancelled. Idempotent.
  void Shutdown(absl::Duration deadline);

 private:
  WorkerServer() = default;

  absl::Mutex mu_;
  bool shut_down_ ABSL_GUARDED_BY(mu_) = false;
  std::unique_ptr<WorkerServiceImpl> service_;
  std::unique_ptr<grpc::Server> server_;
  // Hands the agent's connections to `server_`; stopped before it.
  std::unique_ptr<common::PeerCheckedListener> listener_;
};

}  // namespace fabricpulse::worker
