#include "daemon/worker/worker_server.h"

#include <unistd.h>

#include <filesystem>

#include "absl/strings/str_cat.h"
#include "daemon/common/private_path.h"
#include "daemon/common/unix_socket.h"
#include "daemon/core/log.h"
#include "daemon/worker/fault_injection.h"
#include "grpcpp/server_posix.h"

namespace fabricpulse::worker {
namespace {

// Connections waiting for accept(); the agent opens one at a time.
constexpr int kListenBacklog = 16;

}  // namespace

absl::Status WorkerConfig::Validate() const {
  if (socket.empty()) {
    return absl::InvalidArgumentError("--socket: required; a Unix socket path");
  }
  absl::Status fault = ParseLateRankFault(fault_late_rank).status();
  if (!fault.ok()) return fault;
  absl::Status resources_ok = resources.Parse().status();
  if (!resources_ok.ok()) return resources_ok;
  return tls.Validate();
}

absl::StatusOr<std::unique_ptr<WorkerServer>> WorkerServer::Start(
    const WorkerConfig& config) {
  absl::Status valid = config.Validate();
  if (!valid.ok()) return valid;
  auto creds = security::Credentials::Create(config.tls);
  if (!creds.ok()) return creds.status();
  // The agent that spawned this worker, and the only client it serves.
  const common::AllowedPeer agent{geteuid(), getppid(), "this worker's agent"};
  const std::string folder =
      std::filesystem::path(config.socket).parent_path().string();
  absl::Status private_folder =
      common::CheckPrivateDirectory(folder.empty() ? "." : folder, agent.uid);
  if (!private_folder.ok()) {
    return absl::FailedPreconditionError(
        absl::StrCat("--socket: ", private_folder.message()));
  }
  auto backend = MakeBackend(config.backend);
  if (!backend.ok()) return backend.status();
  const LateRankFault fault = *ParseLateRankFault(config.fault_late_rank);
  if (fault.rank >= 0) {
    FP_LOG_INFO(absl::StrCat("fault injection: rank ", fault.rank,
                             " enters each timed op ",
                             absl::FormatDuration(fault.delay), " late"));
  }
  std::unique_ptr<WorkerServer> s(new WorkerServer);
  s->service_ = std::make_unique<WorkerServiceImpl>(
      std::move(*backend), *std::move(creds), fault, *config.resources.Parse());
  // No listening port: connections come from our own listener, checked.
  grpc::ServerBuilder builder;
  builder.RegisterService(s->service_.get());
  s->server_ = builder.BuildAndStart();
  if (!s->server_) {
    return absl::UnavailableError("cannot start the gRPC server");
  }
  auto listener = common::UnixListener::Bind(config.socket, kListenBacklog);
  if (!listener.ok()) {
    return absl::UnavailableError(
        absl::StrCat("--socket: ", listener.status().message()));
  }
  common::PeerCheckedListenerOptions options;
  options.listener = std::move(*listener);
  options.check = [agent](const common::PeerCredentials& peer) {
    // After the agent dies its pid may be reused; a worker outliving it
    // (until PDEATHSIG ends it) serves nobody.
    if (getppid() != agent.pid) {
      return absl::PermissionDeniedError(
          absl::StrCat("this worker's agent (pid ", agent.pid, ") has exited"));
    }
    return common::CheckPeer(peer, agent);
  };
  grpc::Server* server = s->server_.get();
  options.on_accepted = [server](common::UniqueFd fd) {
    // gRPC owns (and closes) the descriptor from here on.
    grpc::AddInsecureChannelFromFd(server, fd.release());
  };
  auto accepting = common::PeerCheckedListener::Start(std::move(options));
  if (!accepting.ok()) return accepting.status();
  s->listener_ = std::move(*accepting);
  FP_LOG_DEBUG(
      absl::StrCat("serving on ", config.socket, " for pid ", agent.pid));
  return s;
}

void WorkerServer::Shutdown(absl::Duration deadline) {
  {
    absl::MutexLock lock(&mu_);
    if (shut_down_) return;
    shut_down_ = true;
  }
  if (listener_) listener_->Stop();
  if (server_) server_->Shutdown(absl::ToChronoTime(absl::Now() + deadline));
  FP_LOG_DEBUG("server stopped");
}

WorkerServer::~WorkerServer() { Shutdown(absl::Seconds(2)); }

}  // namespace fabricpulse::worker
