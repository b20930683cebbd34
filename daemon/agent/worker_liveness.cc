#include "daemon/agent/worker_liveness.h"

namespace fabricpulse::agent {

WorkerLiveness::WorkerLiveness(
    std::vector<std::shared_ptr<WorkerClient>> workers, absl::Time start,
    absl::Duration interval, absl::Duration call_timeout)
    : workers_(std::move(workers)),
      interval_(interval),
      call_timeout_(call_timeout),
      sent_(workers_.size(), start) {
  absl::MutexLock lock(&shared_->mu);
  shared_->heard.assign(workers_.size(), start);
  shared_->in_flight.assign(workers_.size(), false);
}

void WorkerLiveness::Poll(const std::vector<bool>& running, absl::Time now,
                          std::function<absl::Time()> clock_now) {
  for (size_t i = 0; i < workers_.size() && i < running.size(); ++i) {
    if (!running[i] || now - sent_[i] < interval_) continue;
    {
      absl::MutexLock lock(&shared_->mu);
      if (shared_->in_flight[i]) continue;
      shared_->in_flight[i] = true;
    }
    sent_[i] = now;
    workers_[i]->Ping(call_timeout_,
                      [shared = shared_, i, clock_now](absl::Status status) {
                        absl::MutexLock lock(&shared->mu);
                        shared->in_flight[i] = false;
                        if (status.ok()) shared->heard[i] = clock_now();
                      });
  }
}

std::optional<WorkerLiveness::Silence> WorkerLiveness::Silent(
    const std::vector<bool>& running, absl::Duration limit,
    absl::Time now) const {
  std::optional<Silence> longest;
  absl::MutexLock lock(&shared_->mu);
  for (size_t i = 0; i < shared_->heard.size() && i < running.size(); ++i) {
    if (!running[i]) continue;
    const absl::Duration silent = now - shared_->heard[i];
    if (silent > limit && (!longest || silent > longest->silent)) {
      longest = Silence{i, silent};
    }
  }
  return longest;
}

}  // namespace fabricpulse::agent
