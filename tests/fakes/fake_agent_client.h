// AgentClient fakes for unit tests of the coordinator's orchestrator, runner
// and fan-outs: each fake agent answers Describe with its description, runs
// sweeps in a scripted way (complete them, hang, or fail), records every
// call, and can be told to fail or never answer a method.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "daemon/common/spec_convert.h"
#include "daemon/coordinator/agent_client.h"
#include "daemon/core/sweep_spec.h"

namespace fabricpulse::fakes {

// Thread-safe. Callbacks run on the calling thread, outside the fake's lock.
class FakeAgentClient final : public coordinator::AgentClient {
 public:
  enum class SweepMode {
    kComplete,  // comm_ready and every step for every rank, then OK
    kHang,      // comm_ready, then nothing until Abort or Cancel
    kFail,      // comm_ready, then the stream ends with `sweep_error`
    kScript,    // exactly the events of SetScript, then as kHang
  };

  explicit FakeAgentClient(v1::AgentInfo info) : info_(std::move(info)) {}

  // From now on Describe says worker `local_index` runs on `gpu`, which
  // has `others` foreign compute processes (0: free).
  void SetGpu(int local_index, int gpu, int others) {
    absl::MutexLock lock(&mu_);
    for (v1::WorkerInfo& w : *info_.mutable_workers()) {
      if (w.local_index() != local_index) continue;
      w.set_gpu(gpu);
      w.set_gpu_busy(others > 0);
      w.set_gpu_other_processes(others);
    }
  }

  // Describe answers this error instead of the description.
  void FailDescribe(absl::Status error) {
    absl::MutexLock lock(&mu_);
    describe_error_ = std::move(error);
  }
  // GetFlightRecords answers this error instead of the records.
  void FailFlightRecords(absl::Status error) {
    absl::MutexLock lock(&mu_);
    records_error_ = std::move(error);
  }
  // What GetFlightRecords answers for the worker at `local_index`
  // (default: reachable, no records).
  void SetRecords(int local_index, std::vector<v1::FlightRecord> records) {
    absl::MutexLock lock(&mu_);
    records_[local_index] = std::move(records);
  }
  void SetUnreachable(int local_index, std::string reason) {
    absl::MutexLock lock(&mu_);
    unreachable_[local_index] = std::move(reason);
  }
  // The status an Abort ends open streams with (default ABORTED).
  void SetAbortEnd(absl::Status status) {
    absl::MutexLock lock(&mu_);
    abort_end_ = std::move(status);
  }
  // When false, Abort never answers (a dead or cut-off agent).
  void AnswerAbort(bool answer) {
    absl::MutexLock lock(&mu_);
    answer_abort_ = answer;
  }
  void SetSweepMode(SweepMode mode,
                    absl::Status error = absl::UnavailableError("lost")) {
    absl::MutexLock lock(&mu_);
    mode_ = mode;
    sweep_error_ = std::move(error);
  }
  // The events a kScript sweep sends (a broken or rogue agent).
  void SetScript(std::vector<v1::RankEvent> events) {
    absl::MutexLock lock(&mu_);
    mode_ = SweepMode::kScript;
    script_ = std::move(events);
  }
  // Each rank's mean time per step (default 1 ms).
  void SetRankSeconds(double seconds) {
    absl::MutexLock lock(&mu_);
    rank_seconds_ = seconds;
  }

  int describe_calls() {
    absl::MutexLock lock(&mu_);
    return describe_calls_;
  }
  int abort_calls() {
    absl::MutexLock lock(&mu_);
    return abort_calls_;
  }
  // The cause of each Abort call, in order.
  std::vector<common::AbortCause> abort_causes() {
    absl::MutexLock lock(&mu_);
    return abort_causes_;
  }
  int records_calls() {
    absl::MutexLock lock(&mu_);
    return records_calls_;
  }
  std::vector<v1::AgentSweepRequest> sweeps() {
    absl::MutexLock lock(&mu_);
    return sweeps_;
  }
  // Streams started and not yet ended.
  int open_streams() {
    absl::MutexLock lock(&mu_);
    return static_cast<int>(open_.size());
  }

  void Describe(
      absl::Duration timeout,
      std::function<void(absl::StatusOr<v1::AgentInfo>)> done) override {
    absl::StatusOr<v1::AgentInfo> answer;
    {
      absl::MutexLock lock(&mu_);
      describe_calls_++;
      if (describe_error_.ok()) {
        answer = info_;
      } else {
        answer = describe_error_;
      }
    }
    done(std::move(answer));
  }

  void Abort(const v1::AgentAbortRequest& request, common::AbortCause cause,
             absl::Duration timeout,
             std::function<void(absl::Status)> done) override {
    std::vector<coordinator::AgentSweepCallbacks> ended;
    bool answer;
    absl::Status end;
    {
      absl::MutexLock lock(&mu_);
      abort_calls_++;
      abort_causes_.push_back(cause);
      answer = answer_abort_;
      end = abort_end_;
      if (answer) {
        for (auto& [id, callbacks] : open_) ended.push_back(callbacks);
        open_.clear();
      }
    }
    for (auto& callbacks : ended) {
      callbacks.on_done(end);
    }
    if (answer) done(absl::OkStatus());
  }

  void GetFlightRecords(
      const v1::AgentFlightRecordsRequest& request, absl::Duration timeout,
      std::function<void(absl::StatusOr<v1::AgentFlightRecordsResponse>)> done)
      override {
    absl::StatusOr<v1::AgentFlightRecordsResponse> answer;
    {
      absl::MutexLock lock(&mu_);
      records_calls_++;
      if (records_error_.ok()) {
        v1::AgentFlightRecordsResponse response;
        for (const v1::WorkerInfo& w : info_.workers()) {
          v1::RankFlightRecords* r = response.add_ranks();
          r->set_local_index(w.local_index());
          auto unreachable = unreachable_.find(w.local_index());
          r->set_reachable(unreachable == unreachable_.end());
          if (unreachable != unreachable_.end()) {
            r->set_unreachable_reason(unreachable->second);
          }
          auto records = records_.find(w.local_index());
          if (records != records_.end()) {
            for (const v1::FlightRecord& rec : records->second) {
              *r->add_records() = rec;
            }
          }
        }
        answer = std::move(response);
      } else {
        answer = records_error_;
      }
    }
    done(std::move(answer));
  }

  std::unique_ptr<coordinator::AgentSweepStream> RunSweep(
      const v1::AgentSweepRequest& request,
      coordinator::AgentSweepCallbacks callbacks) override;

 private:
  class Stream;
  void End(int id, const absl::Status& status) {
    coordinator::AgentSweepCallbacks callbacks;
    {
      absl::MutexLock lock(&mu_);
      auto it = open_.find(id);
      if (it == open_.end()) return;
      callbacks = std::move(it->second);
      open_.erase(it);
    }
    callbacks.on_done(status);
  }

  absl::Mutex mu_;
  v1::AgentInfo info_ ABSL_GUARDED_BY(mu_);
  absl::Status describe_error_ ABSL_GUARDED_BY(mu_);
  absl::Status records_error_ ABSL_GUARDED_BY(mu_);
  std::map<int, std::vector<v1::FlightRecord>> records_ ABSL_GUARDED_BY(mu_);
  std::map<int, std::string> unreachable_ ABSL_GUARDED_BY(mu_);
  bool answer_abort_ ABSL_GUARDED_BY(mu_) = true;
  absl::Status abort_end_ ABSL_GUARDED_BY(mu_) =
      absl::AbortedError("aborted by the coordinator");
  SweepMode mode_ ABSL_GUARDED_BY(mu_) = SweepMode::kComplete;
  absl::Status sweep_error_ ABSL_GUARDED_BY(mu_);
  double rank_seconds_ ABSL_GUARDED_BY(mu_) = 1e-3;
  std::vector<v1::RankEvent> script_ ABSL_GUARDED_BY(mu_);
  int describe_calls_ ABSL_GUARDED_BY(mu_) = 0;
  int abort_calls_ ABSL_GUARDED_BY(mu_) = 0;
  std::vector<common::AbortCause> abort_causes_ ABSL_GUARDED_BY(mu_);
  int records_calls_ ABSL_GUARDED_BY(mu_) = 0;
  int next_stream_ ABSL_GUARDED_BY(mu_) = 0;
  std::vector<v1::AgentSweepRequest> sweeps_ ABSL_GUARDED_BY(mu_);
  std::map<int, coordinator::AgentSweepCallbacks> open_ ABSL_GUARDED_BY(mu_);
};

class FakeAgentClient::Stream final : public coordinator::AgentSweepStream {
 public:
  Stream(FakeAgentClient* agent, int id) : agent_(agent), id_(id) {}
  void Cancel() override {
    agent_->End(id_, absl::CancelledError("cancelled by the caller"));
  }

 private:
  FakeAgentClient* const agent_;
  const int id_;
};

inline std::unique_ptr<coordinator::AgentSweepStream> FakeAgentClient::RunSweep(
    const v1::AgentSweepRequest& request,
    coordinator::AgentSweepCallbacks callbacks) {
  SweepMode mode;
  double seconds;
  int id;
  std::vector<v1::RankEvent> script;
  {
    absl::MutexLock lock(&mu_);
    sweeps_.push_back(request);
    mode = mode_;
    seconds = rank_seconds_;
    id = next_stream_++;
    script = script_;
  }
  if (mode == SweepMode::kScript) {
    for (const v1::RankEvent& event : script) callbacks.on_event(event);
    absl::MutexLock lock(&mu_);
    open_[id] = std::move(callbacks);
    return std::make_unique<Stream>(this, id);
  }
  for (const v1::RankAssignment& a : request.ranks()) {
    v1::RankEvent ready;
    ready.mutable_comm_ready()->set_rank(a.rank());
    ready.mutable_comm_ready()->set_init_seconds(0.5);
    callbacks.on_event(ready);
  }
  if (mode == SweepMode::kComplete) {
    auto steps =
        core::Expand(common::SpecFromProto(request.spec()), request.nranks());
    for (const core::Step& step : steps.value()) {
      for (const v1::RankAssignment& a : request.ranks()) {
        v1::RankEvent event;
        event.mutable_step()->set_step_index(step.index);
        v1::RankTiming* t = event.mutable_step()->mutable_timing();
        t->set_rank(a.rank());
        t->set_mean_seconds(seconds);
        t->set_min_seconds(seconds);
        t->set_max_seconds(seconds);
        t->set_p50_seconds(seconds);
        t->set_p99_seconds(seconds);
        callbacks.on_event(event);
      }
    }
    callbacks.on_done(absl::OkStatus());
    return std::make_unique<Stream>(this, id);
  }
  if (mode == SweepMode::kFail) {
    absl::Status error;
    {
      absl::MutexLock lock(&mu_);
      error = sweep_error_;
    }
    callbacks.on_done(error);
    return std::make_unique<Stream>(this, id);
  }
  absl::MutexLock lock(&mu_);
  open_[id] = std::move(callbacks);
  return std::make_unique<Stream>(this, id);
}

// Hands out the fake of each address; an address with no fake gets a client
// whose calls all fail UNAVAILABLE. Thread-safe.
class FakeAgentClients final : public coordinator::AgentClients {
 public:
  // Adds an agent at `info.address()`.
  std::shared_ptr<FakeAgentClient> Add(const v1::AgentInfo& info) {
    auto fake = std::make_shared<FakeAgentClient>(info);
    absl::MutexLock lock(&mu_);
    agents_[info.address()] = fake;
    return fake;
  }
  std::shared_ptr<coordinator::AgentClient> For(
      const v1::AgentInfo& agent) override {
    const std::string& address = agent.address();
    absl::MutexLock lock(&mu_);
    auto it = agents_.find(address);
    if (it != agents_.end()) return it->second;
    auto& missing_slot = missing_[address];
    if (missing_slot) return missing_slot;
    v1::AgentInfo none;
    none.set_address(address);
    auto missing = std::make_shared<FakeAgentClient>(none);
    missing->FailDescribe(absl::UnavailableError("no agent at " + address));
    missing->AnswerAbort(false);
    missing->SetSweepMode(FakeAgentClient::SweepMode::kFail,
                          absl::UnavailableError("no agent at " + address));
    missing_slot = missing;
    return missing;
  }

 private:
  absl::Mutex mu_;
  std::map<std::string, std::shared_ptr<FakeAgentClient>> agents_
      ABSL_GUARDED_BY(mu_);
  std::map<std::string, std::shared_ptr<FakeAgentClient>> missing_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace fabricpulse::fakes
