#include "daemon/worker/worker_server.h"

#include <unistd.h>

#include "absl/strings/str_cat.h"
#include "daemon/core/log.h"
#include "daemon/worker/fault_injection.h"

namespace fabricpulse::worker {

absl::Status WorkerConfig::Validate() const {
  if (socket.empty()) {
    return absl::InvalidArgumentError("--socket: required; a Unix socket path");
  }
  absl::Status fault = ParseLateRankFault(fault_late_rank).status();
  if (!fault.ok()) return fault;
  return tls.Validate();
}

absl::StatusOr<std::unique_ptr<WorkerServer>> WorkerServer::Start(
    const WorkerConfig& config) {
  absl::Status valid = config.Validate();
  if (!valid.ok()) return valid;
  auto creds = security::Credentials::Create(config.tls);
  if (!creds.ok()) return creds.status();
  auto backend = MakeBackend(config.backend);
  if (!backend.ok()) return backend.status();
  const LateRankFault fault = *ParseLateRankFault(config.fault_late_rank);
  if (fault.rank >= 0) {
    FP_LOG_INFO(absl::StrCat("fault injection: rank ", fault.rank,
                             " enters each timed op ",
                             absl::FormatDuration(fault.delay), " late"));
  }
  std::unique_ptr<WorkerServer> s(new WorkerServer);
  s->socket_ = config.socket;
  s->service_ = std::make_unique<WorkerServiceImpl>(std::move(*backend),
                                                    *std::move(creds), fault);
  unlink(config.socket.c_str());
  grpc::ServerBuilder builder;
  builder.AddListeningPort(absl::StrCat("unix:", config.socket),
                           grpc::InsecureServerCredentials());
  builder.RegisterService(s->service_.get());
  s->server_ = builder.BuildAndStart();
  if (!s->server_) {
    return absl::UnavailableError(
        absl::StrCat("cannot listen on unix:", config.socket));
  }
  FP_LOG_DEBUG(absl::StrCat("serving on unix:", config.socket));
  return s;
}

void WorkerServer::Shutdown(absl::Duration deadline) {
  {
    absl::MutexLock lock(&mu_);
    if (shut_down_) return;
    shut_down_ = true;
  }
  if (server_) server_->Shutdown(absl::ToChronoTime(absl::Now() + deadline));
  if (!socket_.empty()) unlink(socket_.c_str());
  FP_LOG_DEBUG("server stopped");
}

WorkerServer::~WorkerServer() { Shutdown(absl::Seconds(2)); }

}  // namespace fabricpulse::worker
