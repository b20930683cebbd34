// Spawns one fabricpulse-worker per rank, watches it, restarts it when it
// dies, and hands out channels to it.
#pragma once

#include <sys/types.h>

#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "daemon/agent/worker_client.h"
#include "daemon/common/worker_resources.h"
#include "daemon/security/tls_options.h"
#include "fabricpulse/v1/types.pb.h"
#include "grpcpp/grpcpp.h"

namespace fabricpulse::agent {

struct SupervisorOptions {
  std::string worker_binary;
  // The agent's private run folder (RunDir): the sockets go in it.
  std::string socket_dir;
  std::string backend;  // resolved: "gloo" or "nccl"
  std::string host;     // Gloo bind address for the workers
  // One entry per worker: its GPU index, or -1 for CPU ranks. Reported in
  // WorkerInfo.gpu; passed to the worker (--gpu) only for nccl (a Gloo rank
  // with a GPU is --gloo-probe-gpus' accounting, agent_config.h).
  std::vector<int> gpus;
  // A new incarnation id prefix per agent start; also in the socket names,
  // so a worker that outlived a killed agent never unlinks a socket of
  // this one.
  std::string boot_id;
  // The agent's TLS files (or --insecure): the workers present the agent's
  // identity to the coordinator's rendezvous store.
  security::TlsOptions worker_tls;
  // --buffer-budget and --release-idle-after, passed on to every worker.
  common::WorkerResourceFlags worker_resources;
  // Called (from a monitor thread, without locks held) each time a worker
  // dies unexpectedly, or is killed by Kill() as KillCause::kFault.
  std::function<void(int local_index)> on_restart;
  // Called (likewise) each time a worker killed by Kill() as
  // KillCause::kAbortRequested has exited: ending work on request is not a
  // fault, so this is not a restart (WorkerInfo.restarts stays).
  std::function<void(int local_index)> on_abort_kill;
  // Called (from a monitor thread, without locks held) when a worker
  // becomes ready or dies.
  std::function<void(int local_index)> on_change;
  // How long a worker may take to serve Ping after spawning (its socket
  // checked first: ours, 0600, served by the pid spawned).
  absl::Duration ready_timeout = absl::Seconds(30);
};

// Thread-safe.
class WorkerSupervisor final : public LocalWorkers {
 public:
  explicit WorkerSupervisor(SupervisorOptions options);
  ~WorkerSupervisor();  // Stop()

  void Start();
  // Terminates every worker (SIGCONT+SIGTERM, SIGKILL after a grace) and
  // joins the monitor threads. Idempotent.
  void Stop();

  int size() const override { return static_cast<int>(options_.gpus.size()); }
  std::vector<v1::WorkerInfo> Snapshot() const override;
  // A client on the worker's socket; nullptr when the worker is not ready
  // (starting or restarting).
  std::shared_ptr<WorkerClient> Ready(int local_index) const override;
  // Kills a stuck worker (SIGCONT and SIGTERM, SIGKILL after a second) so
  // that it is respawned; `reason` is kept for KillReason(). Its exit counts
  // as a restart unless `cause` is kAbortRequested. Bounded.
  void Kill(int local_index, const std::string& reason,
            KillCause cause) override;
  std::string KillReason(int local_index) const override;

  // The socket file name of worker `index` ("worker-<index>.<boot>.sock").
  static std::string SocketName(int index, const std::string& boot_id);

  // Waits until every worker is ready; false on timeout.
  bool WaitAllReady(absl::Duration timeout) const;

  // The backend version the last worker to become ready reported in its
  // Ping (e.g. "nccl 2.28.9"; every worker runs the same binary); empty
  // until a worker is ready.
  std::string BackendVersion() const override;

 private:
  struct Slot {
    pid_t pid = -1;
    std::string incarnation;
    bool ready = false;
    // Exits counted as faults: unexpected deaths and kFault kills.
    int restarts = 0;
    // The pid Kill() ended on an operator's abort request (-1: none); its
    // exit is not a restart.
    pid_t requested_kill_pid = -1;
    int spawns = 0;
    std::shared_ptr<grpc::Channel> channel;
    std::string kill_reason;
  };

  void Monitor(int index);
  // Waits until the new worker's socket is private and served by `pid`,
  // then pings it until it answers (true, with the backend version it
  // reports); false when the ready timeout passes or Stop() begins.
  bool WaitReady(int index, pid_t pid,
                 const std::shared_ptr<grpc::Channel>& channel,
                 std::string* backend_version);
  std::string SocketPath(int index) const;

  const SupervisorOptions options_;
  mutable absl::Mutex mu_;
  std::vector<Slot> slots_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::string backend_version_ ABSL_GUARDED_BY(mu_);
  std::vector<std::thread> monitors_;
};

}  // namespace fabricpulse::agent
