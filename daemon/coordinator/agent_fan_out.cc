#include "daemon/coordinator/agent_fan_out.h"

#include <algorithm>
#include <functional>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"

namespace fabricpulse::coordinator {
namespace {

// The answers of one fan-out. Shared with the callbacks, which may run after
// the caller stopped waiting.
template <typename T>
struct Answers {
  explicit Answers(size_t n, absl::Duration timeout)
      : results(n, absl::DeadlineExceededError(absl::StrCat(
                       "no answer within ", absl::FormatDuration(timeout)))),
        answered(n, false),
        remaining(static_cast<int>(n)) {}
  absl::Mutex mu;
  std::vector<T> results ABSL_GUARDED_BY(mu);
  std::vector<bool> answered ABSL_GUARDED_BY(mu);
  int remaining ABSL_GUARDED_BY(mu);
  size_t in_flight ABSL_GUARDED_BY(mu) = 0;
  bool closed ABSL_GUARDED_BY(mu) = false;  // the caller stopped waiting
};

// Calls `start(i, client, done)` for every agent, at most `window` calls
// in flight, each timed from its own start, and waits for every `done` or
// the deadline: `timeout` per window's worth of agents. The caller's
// thread starts every call (a callback only counts its answer).
template <typename T>
std::vector<T> FanOut(
    AgentClients& clients, const std::vector<v1::AgentInfo>& agents,
    absl::Duration timeout, core::Clock* clock, size_t window,
    const std::function<void(AgentClient&, std::function<void(T)>)>& start) {
  const size_t n = agents.size();
  window = std::max<size_t>(1, window);
  auto answers = std::make_shared<Answers<T>>(n, timeout);
  const size_t rounds = std::max<size_t>(1, (n + window - 1) / window);
  const absl::Time deadline =
      clock->Now() + timeout * static_cast<int64_t>(rounds);
  size_t next = 0;
  absl::Mutex& mu = answers->mu;
  mu.Lock();
  while (true) {
    while (next < n && answers->in_flight < window) {
      const size_t i = next++;
      answers->in_flight++;
      mu.Unlock();
      start(*clients.For(agents[i]), [answers, i](T result) {
        absl::MutexLock lock(&answers->mu);
        if (answers->closed || answers->answered[i]) return;
        answers->answered[i] = true;
        answers->results[i] = std::move(result);
        answers->remaining--;
        answers->in_flight--;
      });
      mu.Lock();
    }
    auto ready = [&answers, &next, n, window]()
                     ABSL_EXCLUSIVE_LOCKS_REQUIRED(answers->mu) {
                       return answers->remaining == 0 ||
                              (next < n && answers->in_flight < window);
                     };
    if (answers->remaining == 0 ||
        !clock->AwaitWithDeadline(&mu, absl::Condition(&ready), deadline) ||
        answers->remaining == 0) {
      break;
    }
  }
  answers->closed = true;
  std::vector<T> results = answers->results;
  mu.Unlock();
  return results;
}

}  // namespace

std::vector<absl::StatusOr<v1::AgentInfo>> DescribeAll(
    AgentClients& clients, const std::vector<v1::AgentInfo>& agents,
    absl::Duration timeout, core::Clock* clock) {
  using T = absl::StatusOr<v1::AgentInfo>;
  return FanOut<T>(clients, agents, timeout, clock, kDescribeWindow,
                   [timeout](AgentClient& client, std::function<void(T)> done) {
                     client.Describe(timeout, std::move(done));
                   });
}

std::vector<absl::Status> AbortAll(AgentClients& clients,
                                   const std::vector<v1::AgentInfo>& agents,
                                   const std::string& comm_id,
                                   common::AbortCause cause,
                                   absl::Duration timeout, core::Clock* clock) {
  v1::AgentAbortRequest request;
  request.set_comm_id(comm_id);
  return FanOut<absl::Status>(
      clients, agents, timeout, clock, agents.size(),
      [&request, cause, timeout](AgentClient& client,
                                 std::function<void(absl::Status)> done) {
        client.Abort(request, cause, timeout, std::move(done));
      });
}

std::vector<absl::StatusOr<v1::AgentFlightRecordsResponse>> FlightRecordsAll(
    AgentClients& clients, const std::vector<v1::AgentInfo>& agents,
    const std::string& sweep_id, absl::Duration timeout, core::Clock* clock) {
  using T = absl::StatusOr<v1::AgentFlightRecordsResponse>;
  v1::AgentFlightRecordsRequest request;
  request.set_sweep_id(sweep_id);
  return FanOut<T>(
      clients, agents, timeout, clock, agents.size(),
      [&request, timeout](AgentClient& client, std::function<void(T)> done) {
        client.GetFlightRecords(request, timeout, std::move(done));
      });
}

}  // namespace fabricpulse::coordinator
