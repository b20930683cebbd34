#include "daemon/coordinator/sweep_stream.h"

#include <thread>

#include "absl/time/clock.h"
#include "daemon/common/grpc_status.h"

namespace fabricpulse::coordinator {

void SweepThreads::Enter() {
  absl::MutexLock lock(&mu_);
  running_++;
}

void SweepThreads::Leave() {
  absl::MutexLock lock(&mu_);
  running_--;
}

bool SweepThreads::WaitIdle(absl::Duration timeout) {
  absl::MutexLock lock(&mu_);
  auto idle = [this]()
                  ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return running_ == 0; };
  return mu_.AwaitWithTimeout(absl::Condition(&idle), timeout);
}

SweepStream* SweepStream::Start(SweepOrchestrator* orchestrator,
                                SweepThreads* threads,
                                const v1::SweepRequest& request) {
  std::shared_ptr<SweepStream> stream(new SweepStream(orchestrator));
  stream->self_ = stream;
  threads->Enter();
  std::thread([stream, threads, request] {
    absl::Status status = stream->orchestrator_->Execute(
        request, "cli",
        [&stream](const v1::SweepEvent& event) { return stream->Push(event); });
    stream->Finished(status);
    threads->Leave();
  }).detach();
  return stream.get();
}

bool SweepStream::Push(const v1::SweepEvent& event) {
  absl::MutexLock lock(&mu_);
  if (event.has_started()) sweep_id_ = event.started().sweep_id();
  auto has_room = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return gone_ || queue_.size() < kMaxQueued;
  };
  if (!mu_.AwaitWithTimeout(absl::Condition(&has_room), kStallLimit)) {
    gone_ = true;  // the client has not read for kStallLimit
  }
  if (gone_) return false;
  queue_.push_back(event);
  if (!writing_) WriteNextLocked();
  return true;
}

void SweepStream::WriteNextLocked() {
  writing_event_ = std::move(queue_.front());
  queue_.pop_front();
  writing_ = true;
  StartWrite(&writing_event_);
}

void SweepStream::FinishIfDoneLocked() {
  if (finished_ || !returned_ || writing_ || (!queue_.empty() && !gone_)) {
    return;
  }
  finished_ = true;
  Finish(common::ToGrpcStatus(status_));
}

void SweepStream::OnWriteDone(bool ok) {
  absl::MutexLock lock(&mu_);
  writing_ = false;
  if (!ok) {
    gone_ = true;
    queue_.clear();
  } else if (!queue_.empty()) {
    WriteNextLocked();
    return;
  }
  FinishIfDoneLocked();
}

void SweepStream::Finished(const absl::Status& status) {
  absl::MutexLock lock(&mu_);
  returned_ = true;
  status_ = status;
  FinishIfDoneLocked();
}

void SweepStream::OnCancel() {
  std::string sweep_id;
  {
    absl::MutexLock lock(&mu_);
    gone_ = true;
    queue_.clear();
    sweep_id = sweep_id_;
  }
  // Before the first event the sweep sees the cancellation at its first
  // Push; after it, the runner is woken now.
  if (!sweep_id.empty()) orchestrator_->Cancel(sweep_id);
}

void SweepStream::OnDone() {
  std::shared_ptr<SweepStream> keep;
  {
    absl::MutexLock lock(&mu_);
    keep = std::move(self_);
  }
  // `keep` goes last: the sweep's thread may still hold its own reference.
}

}  // namespace fabricpulse::coordinator
