// LocalWorkers and WorkerClient fakes for unit tests of the agent's sweep
// relay and fan-outs: each fake worker completes, hangs (answering an abort
// or, when stopped, not) or fails its sweeps; kills and calls are recorded.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "daemon/agent/worker_client.h"

namespace fabricpulse::fakes {

// Thread-safe. Callbacks run on the calling thread, outside the lock.
class FakeWorkerClient final : public agent::WorkerClient {
 public:
  enum class Mode {
    kComplete,  // comm_ready, `steps` step events, OK
    kHang,      // comm_ready, then nothing until aborted or cancelled
    kStopped,   // like kHang, but Abort is not answered (SIGSTOP)
    kFail,      // comm_ready, then `error`
  };
  void Set(Mode mode, int steps = 3,
           absl::Status error = absl::UnavailableError("connection reset")) {
    absl::MutexLock lock(&mu_);
    mode_ = mode;
    steps_ = steps;
    error_ = std::move(error);
  }
  int abort_calls() {
    absl::MutexLock lock(&mu_);
    return abort_calls_;
  }
  std::vector<v1::WorkerSweepRequest> sweeps() {
    absl::MutexLock lock(&mu_);
    return sweeps_;
  }
  bool streaming() {
    absl::MutexLock lock(&mu_);
    return open_ != nullptr;
  }
  // Ends an open stream as a dying process would (UNAVAILABLE).
  void Die() { End(absl::UnavailableError("worker process exited")); }

  std::unique_ptr<agent::WorkerSweepStream> RunSweep(
      const v1::WorkerSweepRequest& request,
      agent::WorkerSweepCallbacks callbacks) override {
    Mode mode;
    int steps;
    absl::Status error;
    {
      absl::MutexLock lock(&mu_);
      sweeps_.push_back(request);
      mode = mode_;
      steps = steps_;
      error = error_;
    }
    v1::RankEvent ready;
    ready.mutable_comm_ready()->set_rank(request.rank());
    callbacks.on_event(ready);
    if (mode == Mode::kComplete) {
      for (int i = 0; i < steps; ++i) {
        v1::RankEvent step;
        step.mutable_step()->set_step_index(i);
        step.mutable_step()->mutable_timing()->set_rank(request.rank());
        step.mutable_step()->mutable_timing()->set_mean_seconds(1e-3);
        callbacks.on_event(step);
      }
      callbacks.on_done(absl::OkStatus());
    } else if (mode == Mode::kFail) {
      callbacks.on_done(error);
    } else {
      absl::MutexLock lock(&mu_);
      open_ =
          std::make_unique<agent::WorkerSweepCallbacks>(std::move(callbacks));
    }
    return std::make_unique<Stream>(this);
  }

  void Abort(const v1::WorkerAbortRequest& request, absl::Duration timeout,
             std::function<void(absl::Status)> done) override {
    bool stopped;
    {
      absl::MutexLock lock(&mu_);
      abort_calls_++;
      stopped = mode_ == Mode::kStopped;
    }
    if (stopped) return;  // never answers
    End(absl::AbortedError("aborted"));
    done(absl::OkStatus());
  }

  // Answered at once unless stopped (then never, as a SIGSTOPped process).
  void Ping(absl::Duration timeout,
            std::function<void(absl::Status)> done) override {
    {
      absl::MutexLock lock(&mu_);
      ping_calls_++;
      if (mode_ == Mode::kStopped) return;
    }
    done(absl::OkStatus());
  }
  int ping_calls() {
    absl::MutexLock lock(&mu_);
    return ping_calls_;
  }

  void GetFlightRecords(
      const v1::FlightRecordsRequest& request, absl::Duration timeout,
      std::function<void(absl::StatusOr<v1::FlightRecordsResponse>)> done)
      override {
    bool stopped;
    {
      absl::MutexLock lock(&mu_);
      stopped = mode_ == Mode::kStopped;
    }
    if (stopped) return;
    v1::FlightRecordsResponse response;
    response.set_rank(7);
    response.add_records()->set_seq(1);
    done(response);
  }

 private:
  class Stream final : public agent::WorkerSweepStream {
   public:
    explicit Stream(FakeWorkerClient* worker) : worker_(worker) {}
    void Cancel() override {
      worker_->End(absl::CancelledError("cancelled by the agent"));
    }

   private:
    FakeWorkerClient* const worker_;
  };
  void End(const absl::Status& status) {
    std::unique_ptr<agent::WorkerSweepCallbacks> callbacks;
    {
      absl::MutexLock lock(&mu_);
      callbacks = std::move(open_);
    }
    if (callbacks) callbacks->on_done(status);
  }

  absl::Mutex mu_;
  Mode mode_ ABSL_GUARDED_BY(mu_) = Mode::kComplete;
  int steps_ ABSL_GUARDED_BY(mu_) = 3;
  absl::Status error_ ABSL_GUARDED_BY(mu_);
  int abort_calls_ ABSL_GUARDED_BY(mu_) = 0;
  int ping_calls_ ABSL_GUARDED_BY(mu_) = 0;
  std::vector<v1::WorkerSweepRequest> sweeps_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<agent::WorkerSweepCallbacks> open_ ABSL_GUARDED_BY(mu_);
};

// `n` fake workers, all ready unless marked otherwise. Kill() ends the
// worker's open stream as its death would. Thread-safe.
class FakeLocalWorkers final : public agent::LocalWorkers {
 public:
  explicit FakeLocalWorkers(int n) : ready_(n, true) {
    for (int i = 0; i < n; ++i) {
      workers_.push_back(std::make_shared<FakeWorkerClient>());
    }
  }
  FakeWorkerClient& worker(int i) { return *workers_[i]; }
  void SetReady(int i, bool ready) {
    absl::MutexLock lock(&mu_);
    ready_[i] = ready;
  }
  std::vector<std::string> kills() {
    absl::MutexLock lock(&mu_);
    return kills_;
  }
  std::vector<agent::KillCause> kill_causes() {
    absl::MutexLock lock(&mu_);
    return kill_causes_;
  }

  int size() const override { return static_cast<int>(workers_.size()); }
  std::shared_ptr<agent::WorkerClient> Ready(int i) const override {
    absl::MutexLock lock(&mu_);
    if (i < 0 || i >= size() || !ready_[i]) return nullptr;
    return workers_[i];
  }
  void Kill(int i, const std::string& reason, agent::KillCause cause) override {
    {
      absl::MutexLock lock(&mu_);
      kills_.push_back(reason);
      kill_causes_.push_back(cause);
      reasons_[i] = reason;
      ready_[i] = false;
    }
    workers_[i]->Die();
  }
  std::string KillReason(int i) const override {
    absl::MutexLock lock(&mu_);
    auto it = reasons_.find(i);
    return it == reasons_.end() ? "" : it->second;
  }
  std::string BackendVersion() const override { return "fake 1.0"; }
  std::vector<v1::WorkerInfo> Snapshot() const override {
    std::vector<v1::WorkerInfo> out(workers_.size());
    for (size_t i = 0; i < out.size(); ++i) {
      out[i].set_local_index(static_cast<int>(i));
      out[i].set_gpu(static_cast<int>(i));
    }
    return out;
  }

 private:
  mutable absl::Mutex mu_;
  std::vector<std::shared_ptr<FakeWorkerClient>> workers_;
  std::vector<bool> ready_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> kills_ ABSL_GUARDED_BY(mu_);
  std::vector<agent::KillCause> kill_causes_ ABSL_GUARDED_BY(mu_);
  std::map<int, std::string> reasons_ ABSL_GUARDED_BY(mu_);
};

}  // namespace fabricpulse::fakes
