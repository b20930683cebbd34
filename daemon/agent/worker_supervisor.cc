#include "daemon/agent/worker_supervisor.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "daemon/agent/grpc_worker_client.h"
#include "daemon/common/process.h"
#include "daemon/common/unix_socket.h"
#include "daemon/core/log.h"
#include "fabricpulse/v1/worker.grpc.pb.h"

namespace fabricpulse::agent {

WorkerSupervisor::WorkerSupervisor(SupervisorOptions options)
    : options_(std::move(options)), slots_(options_.gpus.size()) {}

WorkerSupervisor::~WorkerSupervisor() { Stop(); }

std::string WorkerSupervisor::SocketName(int index,
                                         const std::string& boot_id) {
  return absl::StrCat("worker-", index, ".", boot_id, ".sock");
}

std::string WorkerSupervisor::SocketPath(int index) const {
  return absl::StrCat(options_.socket_dir, "/",
                      SocketName(index, options_.boot_id));
}

void WorkerSupervisor::Start() {
  for (int i = 0; i < size(); ++i) {
    monitors_.emplace_back([this, i] { Monitor(i); });
  }
}

bool WorkerSupervisor::WaitReady(int index, pid_t pid,
                                 const std::shared_ptr<grpc::Channel>& channel,
                                 std::string* backend_version) {
  auto stub = v1::WorkerService::NewStub(channel);
  const absl::Time deadline = absl::Now() + options_.ready_timeout;
  const std::string path = SocketPath(index);
  const common::AllowedPeer worker{geteuid(), pid,
                                   absl::StrCat("worker ", index)};
  bool checked = false;
  std::string logged;  // the last check failure logged
  absl::Duration recheck = absl::Milliseconds(2);
  while (absl::Now() < deadline) {
    {
      absl::MutexLock lock(&mu_);
      if (stopping_) return false;
    }
    if (!checked) {
      // The file appears, then is listened on, a few ms after the spawn;
      // anything else (wrong owner, mode or server) is logged once and, if
      // it lasts, ends as "not ready in time": the worker is respawned.
      absl::Status check = common::CheckSocketServer(path, worker);
      if (!check.ok()) {
        const bool starting =
            absl::IsNotFound(check) || absl::IsUnavailable(check);
        if (!starting && check.message() != logged) {
          logged = std::string(check.message());
          FP_LOG_ERROR(absl::StrCat("worker ", index, " (pid ", pid,
                                    "): refusing its socket: ", logged));
        }
        absl::MutexLock lock(&mu_);
        mu_.AwaitWithDeadline(absl::Condition(&stopping_),
                              std::min(deadline, absl::Now() + recheck));
        recheck = std::min(recheck * 2, absl::Milliseconds(50));
        continue;
      }
      checked = true;
    }
    grpc::ClientContext ctx;
    // wait_for_ready: the call waits (bounded) for the socket to appear.
    ctx.set_wait_for_ready(true);
    ctx.set_deadline(absl::ToChronoTime(
        std::min(deadline, absl::Now() + absl::Milliseconds(500))));
    v1::PingRequest req;
    v1::PingResponse resp;
    if (stub->Ping(&ctx, req, &resp).ok()) {
      *backend_version = resp.backend_version();
      return true;
    }
  }
  return false;
}

void WorkerSupervisor::Monitor(int index) {
  absl::Duration backoff = absl::Milliseconds(50);
  while (true) {
    std::string incarnation;
    {
      absl::MutexLock lock(&mu_);
      if (stopping_) return;
      Slot& slot = slots_[index];
      slot.spawns++;
      incarnation =
          absl::StrCat(options_.boot_id, "-", index, "-", slot.spawns);
    }
    common::SpawnOptions spawn;
    spawn.argv = {
        options_.worker_binary, "--socket", SocketPath(index), "--backend",
        options_.backend,       "--host",   options_.host,     "--local-index",
        absl::StrCat(index)};
    if (options_.gpus[index] >= 0 && options_.backend == "nccl") {
      spawn.argv.push_back("--gpu");
      spawn.argv.push_back(absl::StrCat(options_.gpus[index]));
    }
    options_.worker_resources.AppendArgs(&spawn.argv);
    const security::TlsOptions& tls = options_.worker_tls;
    if (tls.insecure) {
      spawn.argv.push_back("--insecure");
    } else {
      spawn.argv.insert(spawn.argv.end(),
                        {"--tls-cert", tls.cert_file, "--tls-key", tls.key_file,
                         "--tls-ca", tls.ca_file, "--tls-refresh",
                         absl::StrCat(absl::ToInt64Seconds(tls.refresh))});
    }
    spawn.argv.insert(spawn.argv.end(), {"--trust-domain", tls.trust_domain});
    auto pid = common::Spawn(spawn);
    if (!pid.ok()) {
      FP_LOG_ERROR(absl::StrCat("worker ", index,
                                ": cannot start: ", pid.status().message()));
      absl::MutexLock lock(&mu_);
      mu_.AwaitWithTimeout(absl::Condition(&stopping_), absl::Seconds(5));
      continue;
    }
    // The socket appears a few milliseconds after spawning: retry the
    // connection quickly instead of gRPC's default one-second backoff.
    grpc::ChannelArguments args;
    args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 10);
    args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 10);
    args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 200);
    auto channel =
        grpc::CreateCustomChannel(absl::StrCat("unix:", SocketPath(index)),
                                  grpc::InsecureChannelCredentials(), args);
    {
      absl::MutexLock lock(&mu_);
      slots_[index].pid = *pid;
      slots_[index].incarnation = incarnation;
      slots_[index].channel = channel;
    }
    std::string backend_version;
    const bool ready = WaitReady(index, *pid, channel, &backend_version);
    // Only the slot keeps the channel: Stop() drops it so the worker's
    // server does not wait on an open connection while shutting down.
    channel.reset();
    if (ready) {
      absl::MutexLock lock(&mu_);
      slots_[index].ready = true;
      if (!backend_version.empty()) backend_version_ = backend_version;
      backoff = absl::Milliseconds(50);
      FP_LOG_DEBUG(absl::StrCat("worker ", index, " ready, pid ", *pid));
    }
    if (ready && options_.on_change) options_.on_change(index);
    if (!ready) {
      FP_LOG_WARNING(absl::StrCat("worker ", index, " (pid ", *pid,
                                  ") not ready in time; killing it"));
      kill(*pid, SIGKILL);
    }
    int wstatus = 0;
    // Blocks until the worker exits; Stop() signals it to end this wait.
    waitpid(*pid, &wstatus, 0);
    bool requested = false;
    {
      absl::MutexLock lock(&mu_);
      Slot& slot = slots_[index];
      slot.ready = false;
      slot.pid = -1;
      slot.channel.reset();
      requested = slot.requested_kill_pid == *pid;
      slot.requested_kill_pid = -1;
      if (stopping_) return;
      const common::ExitInfo info = common::ExitInfoFromWaitStatus(wstatus);
      if (requested) {
        FP_LOG_INFO(absl::StrCat("worker ", index, " ", info.Describe(),
                                 " after a requested abort; restarting (not "
                                 "counted as a restart)"));
      } else {
        slot.restarts++;
        FP_LOG_WARNING(absl::StrCat("worker ", index, " ", info.Describe(),
                                    "; restarting (restart ", slot.restarts,
                                    ")"));
      }
    }
    // Outside the lock, as the header promises: callbacks may call
    // Snapshot().
    if (requested) {
      if (options_.on_abort_kill) options_.on_abort_kill(index);
    } else if (options_.on_restart) {
      options_.on_restart(index);
    }
    if (options_.on_change) options_.on_change(index);
    absl::MutexLock lock(&mu_);
    mu_.AwaitWithTimeout(absl::Condition(&stopping_), backoff);
    backoff = std::min(backoff * 2, absl::Seconds(5));
  }
}

void WorkerSupervisor::Stop() {
  std::vector<pid_t> pids;
  {
    absl::MutexLock lock(&mu_);
    if (stopping_ && monitors_.empty()) return;
    stopping_ = true;
    for (Slot& slot : slots_) {
      if (slot.pid > 0) pids.push_back(slot.pid);
      // An open connection makes the worker's server wait out its whole
      // shutdown deadline.
      slot.channel.reset();
      slot.ready = false;
    }
  }
  for (pid_t pid : pids) {
    kill(pid, SIGCONT);
    kill(pid, SIGTERM);
  }
  // The monitor threads reap; escalate for workers that ignore SIGTERM.
  const absl::Time deadline = absl::Now() + absl::Seconds(3);
  {
    absl::MutexLock lock(&mu_);
    auto all_gone = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      for (const Slot& slot : slots_) {
        if (slot.pid > 0) return false;
      }
      return true;
    };
    while (!all_gone() && absl::Now() < deadline) {
      mu_.AwaitWithDeadline(absl::Condition(&all_gone), deadline);
    }
    for (const Slot& slot : slots_) {
      if (slot.pid > 0) kill(slot.pid, SIGKILL);
    }
  }
  for (std::thread& t : monitors_) t.join();
  monitors_.clear();
}

void WorkerSupervisor::Kill(int local_index, const std::string& reason,
                            KillCause cause) {
  pid_t pid;
  {
    absl::MutexLock lock(&mu_);
    if (local_index < 0 || local_index >= static_cast<int>(slots_.size())) {
      return;
    }
    pid = slots_[local_index].pid;
    slots_[local_index].kill_reason = reason;
    slots_[local_index].ready = false;
    slots_[local_index].requested_kill_pid =
        cause == KillCause::kAbortRequested ? pid : -1;
  }
  if (pid <= 0) return;
  FP_LOG_WARNING(absl::StrCat("worker ", local_index, " (pid ", pid,
                              "): killing: ", reason));
  kill(pid, SIGCONT);
  kill(pid, SIGTERM);
  absl::MutexLock lock(&mu_);
  auto gone = [this, local_index, pid]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return slots_[local_index].pid != pid;
  };
  if (!mu_.AwaitWithTimeout(absl::Condition(&gone), absl::Seconds(1))) {
    kill(pid, SIGKILL);
  }
}

std::string WorkerSupervisor::KillReason(int local_index) const {
  absl::MutexLock lock(&mu_);
  if (local_index < 0 || local_index >= static_cast<int>(slots_.size())) {
    return "";
  }
  return slots_[local_index].kill_reason;
}

std::vector<v1::WorkerInfo> WorkerSupervisor::Snapshot() const {
  absl::MutexLock lock(&mu_);
  std::vector<v1::WorkerInfo> out;
  for (int i = 0; i < static_cast<int>(slots_.size()); ++i) {
    v1::WorkerInfo info;
    info.set_local_index(i);
    info.set_incarnation(slots_[i].incarnation);
    info.set_ready(slots_[i].ready);
    info.set_pid(slots_[i].pid);
    info.set_restarts(slots_[i].restarts);
    info.set_gpu(options_.gpus[i]);
    out.push_back(info);
  }
  return out;
}

std::shared_ptr<WorkerClient> WorkerSupervisor::Ready(int local_index) const {
  std::shared_ptr<grpc::Channel> channel;
  {
    absl::MutexLock lock(&mu_);
    if (local_index < 0 || local_index >= static_cast<int>(slots_.size())) {
      return nullptr;
    }
    const Slot& slot = slots_[local_index];
    if (!slot.ready) return nullptr;
    channel = slot.channel;
  }
  return NewGrpcWorkerClient(std::move(channel));
}

std::string WorkerSupervisor::BackendVersion() const {
  absl::MutexLock lock(&mu_);
  return backend_version_;
}

bool WorkerSupervisor::WaitAllReady(absl::Duration timeout) const {
  absl::MutexLock lock(&mu_);
  auto all_ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    for (const Slot& slot : slots_) {
      if (!slot.ready) return false;
    }
    return true;
  };
  return mu_.AwaitWithTimeout(absl::Condition(&all_ready), timeout);
}

}  // namespace fabricpulse::agent
