// A ScheduleTarget for scheduler unit tests: a fake membership (the agents
// and what their heartbeats say about their GPUs), scripted run results,
// and a record of every call.
#pragma once

#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "daemon/coordinator/busy_gpus.h"
#include "daemon/coordinator/scheduler.h"
#include "fabricpulse/v1/types.pb.h"

namespace fabricpulse::fakes {

// Thread-safe.
class FakeScheduleTarget : public coordinator::ScheduleTarget {
 public:
  // The members every schedule's plan runs on, as last heard.
  void SetAgents(std::vector<v1::AgentInfo> agents) {
    absl::MutexLock lock(&mu_);
    agents_ = std::move(agents);
  }
  // Marks `gpu` of `node` busy (with `others` other processes) or free.
  void SetGpuBusy(const std::string& node, int gpu, int others) {
    absl::MutexLock lock(&mu_);
    for (v1::AgentInfo& a : agents_) {
      if (a.node_name() != node) continue;
      for (v1::WorkerInfo& w : *a.mutable_workers()) {
        if (w.gpu() != gpu) continue;
        w.set_gpu_busy(others > 0);
        w.set_gpu_other_processes(others);
      }
    }
  }
  void FailMembership(absl::Status error) {
    absl::MutexLock lock(&mu_);
    members_error_ = std::move(error);
  }
  // The next Run() calls return these, in order; then OK.
  void QueueRunResult(absl::Status status) {
    absl::MutexLock lock(&mu_);
    run_results_.push_back(std::move(status));
  }

  absl::StatusOr<std::vector<coordinator::BusyGpu>> BusyGpus(
      const core::ScheduleConfig& schedule) override {
    absl::MutexLock lock(&mu_);
    busy_asks_.push_back(schedule.name);
    if (!members_error_.ok()) return members_error_;
    return coordinator::FindBusyGpus(agents_);
  }
  absl::Status Run(const core::ScheduleConfig& schedule) override {
    absl::MutexLock lock(&mu_);
    runs_.push_back(schedule.name);
    if (run_results_.empty()) return absl::OkStatus();
    absl::Status s = run_results_.front();
    run_results_.pop_front();
    return s;
  }
  void Deferred(const core::ScheduleConfig& schedule,
                absl::string_view reason) override {
    absl::MutexLock lock(&mu_);
    deferred_.push_back(schedule.name + ":" + std::string(reason));
  }

  std::vector<std::string> runs() {
    absl::MutexLock lock(&mu_);
    return runs_;
  }
  std::vector<std::string> deferred() {
    absl::MutexLock lock(&mu_);
    return deferred_;
  }
  std::vector<std::string> busy_asks() {
    absl::MutexLock lock(&mu_);
    return busy_asks_;
  }

 private:
  absl::Mutex mu_;
  std::vector<v1::AgentInfo> agents_ ABSL_GUARDED_BY(mu_);
  absl::Status members_error_ ABSL_GUARDED_BY(mu_);
  std::deque<absl::Status> run_results_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> runs_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> deferred_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> busy_asks_ ABSL_GUARDED_BY(mu_);
};

}  // namespace fabricpulse::fakes
