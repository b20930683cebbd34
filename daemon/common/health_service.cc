#include "daemon/common/health_service.h"

#include <algorithm>

#include "absl/time/time.h"

namespace fabricpulse::common {

using grpc::health::v1::HealthCheckRequest;
using Status = HealthService::Response::ServingStatus;

// One Watch call: writes the newest status whenever it differs from the
// last one written, one write at a time; never calls Finish while a write
// is outstanding.
class HealthService::Watcher : public grpc::ServerWriteReactor<Response> {
 public:
  explicit Watcher(HealthService* owner) : owner_(owner) {}

  // Sends `status` (or only the newest of several queued); with `last`,
  // ends the call once it is written.
  void Send(Status status, bool last) ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock lock(&mu_);
    if (finished_) return;
    pending_ = status;
    has_pending_ = true;
    end_after_write_ = end_after_write_ || last;
    if (!writing_) WriteOrFinishLocked();
  }

  // Ends the call now (too many watchers).
  void Refuse(const grpc::Status& status) ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock lock(&mu_);
    FinishLocked(status);
  }

  void OnWriteDone(bool ok) override ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock lock(&mu_);
    writing_ = false;
    if (!ok) {
      FinishLocked(grpc::Status(grpc::StatusCode::CANCELLED, "write failed"));
      return;
    }
    WriteOrFinishLocked();
  }

  void OnCancel() override ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock lock(&mu_);
    cancelled_ = true;
    // An outstanding write fails and finishes in OnWriteDone.
    if (!writing_) FinishLocked(grpc::Status::CANCELLED);
  }

  void OnDone() override {
    owner_->Remove(this);
    delete this;
  }

 private:
  void WriteOrFinishLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (cancelled_) {
      FinishLocked(grpc::Status::CANCELLED);
      return;
    }
    if (has_pending_ && (!has_sent_ || pending_ != sent_)) {
      response_.set_status(pending_);
      sent_ = pending_;
      has_sent_ = true;
      has_pending_ = false;
      writing_ = true;
      StartWrite(&response_);
      return;
    }
    has_pending_ = false;
    if (end_after_write_) FinishLocked(grpc::Status::OK);
  }

  void FinishLocked(const grpc::Status& status)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (finished_) return;
    finished_ = true;
    Finish(status);
  }

  HealthService* const owner_;
  absl::Mutex mu_;
  Response response_ ABSL_GUARDED_BY(mu_);
  Status pending_ ABSL_GUARDED_BY(mu_) = Response::UNKNOWN;
  Status sent_ ABSL_GUARDED_BY(mu_) = Response::UNKNOWN;
  bool has_pending_ ABSL_GUARDED_BY(mu_) = false;
  bool has_sent_ ABSL_GUARDED_BY(mu_) = false;
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
  bool end_after_write_ ABSL_GUARDED_BY(mu_) = false;
  bool cancelled_ ABSL_GUARDED_BY(mu_) = false;
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
};

HealthService::HealthService(std::vector<std::string> services)
    : services_(std::move(services)) {}

HealthService::~HealthService() {
  Shutdown();
  // The servers are down by now (see the header), so every Watch call has
  // ended; the wait only guards against misuse.
  absl::MutexLock lock(&mu_);
  const absl::Time deadline = absl::Now() + absl::Seconds(5);
  while (!watched_.empty()) {
    if (watchers_gone_.WaitWithDeadline(&mu_, deadline)) break;
  }
}

void HealthService::SetServing(bool serving) {
  absl::MutexLock lock(&mu_);
  if (shut_down_) return;
  serving_ = serving;
  // Watchers of unknown names keep SERVICE_UNKNOWN; the others follow.
  for (auto& [watcher, service] : watched_) {
    watcher->Send(StatusOf(service, Response::SERVICE_UNKNOWN), false);
  }
}

void HealthService::Shutdown() {
  absl::MutexLock lock(&mu_);
  if (shut_down_) return;
  shut_down_ = true;
  serving_ = false;
  for (auto& [watcher, service] : watched_) {
    watcher->Send(Response::NOT_SERVING, /*last=*/true);
  }
}

bool HealthService::serving() const {
  absl::MutexLock lock(&mu_);
  return serving_;
}

Status HealthService::StatusOf(const std::string& service,
                               Status unknown) const {
  if (!service.empty() && std::find(services_.begin(), services_.end(),
                                    service) == services_.end()) {
    return unknown;
  }
  return serving_ ? Response::SERVING : Response::NOT_SERVING;
}

grpc::ServerUnaryReactor* HealthService::Check(
    grpc::CallbackServerContext* context, const HealthCheckRequest* request,
    Response* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  Status status;
  {
    absl::MutexLock lock(&mu_);
    status = StatusOf(request->service(), Response::SERVICE_UNKNOWN);
  }
  if (status == Response::SERVICE_UNKNOWN) {
    reactor->Finish(
        grpc::Status(grpc::StatusCode::NOT_FOUND, "unknown service"));
    return reactor;
  }
  response->set_status(status);
  reactor->Finish(grpc::Status::OK);
  return reactor;
}

grpc::ServerWriteReactor<HealthService::Response>* HealthService::Watch(
    grpc::CallbackServerContext* context, const HealthCheckRequest* request) {
  auto* watcher = new Watcher(this);
  absl::MutexLock lock(&mu_);
  if (watched_.size() >= static_cast<size_t>(kMaxWatchers)) {
    // Not registered: its OnDone's Remove finds nothing.
    watcher->Refuse(grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                                 "too many Watch calls on this server (at "
                                 "most 16)"));
    return watcher;
  }
  watched_.emplace(watcher, request->service());
  if (shut_down_) {
    watcher->Send(Response::NOT_SERVING, /*last=*/true);
  } else {
    watcher->Send(StatusOf(request->service(), Response::SERVICE_UNKNOWN),
                  false);
  }
  return watcher;
}

void HealthService::Remove(Watcher* watcher) {
  absl::MutexLock lock(&mu_);
  watched_.erase(watcher);
  if (watched_.empty()) watchers_gone_.SignalAll();
}

}  // namespace fabricpulse::common
