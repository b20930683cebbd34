// The worker as one object: its configuration, the backend it runs and the
// WorkerService on the agent's Unix socket, started together and shut down
// in order. worker_main.cc only parses flags and waits for a signal.
#pragma once

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
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

  // Errors: INVALID_ARGUMENT naming the flag and what is allowed. The
  // backend's own fields are checked where the backend is built
  // (MakeBackend), which names them the same way.
  absl::Status Validate() const;
};

// Thread-safe.
class WorkerServer {
 public:
  // Validates `config`, builds the backend and serves WorkerService on
  // `config.socket` (replacing a stale socket file). Errors:
  // INVALID_ARGUMENT a bad flag; FAILED_PRECONDITION the backend cannot run
  // here (not built in, no GPU); UNAVAILABLE the socket cannot be served.
  static absl::StatusOr<std::unique_ptr<WorkerServer>> Start(
      const WorkerConfig& config);
  ~WorkerServer();  // Shutdown(2 s)

  // Streams in flight get until `deadline`, then are cancelled; the socket
  // file is removed. Idempotent.
  void Shutdown(absl::Duration deadline);

 private:
  WorkerServer() = default;

  absl::Mutex mu_;
  bool shut_down_ ABSL_GUARDED_BY(mu_) = false;
  std::string socket_;
  std::unique_ptr<WorkerServiceImpl> service_;
  std::unique_ptr<grpc::Server> server_;
};

}  // namespace fabricpulse::worker
