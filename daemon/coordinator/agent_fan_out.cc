#include "daemon/coordinator/agent_fan_out.h"

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
  bool closed ABSL_GUARDED_BY(mu) = false;  // the caller stopped waiting
};

// Calls `start(i, client, done)` for every agent and waits for every `done`
// or the deadline.
template <typename T>
std::vector<T> FanOut(
    AgentClients& clients, const std::vector<v1::AgentInfo>& agents,
    absl::Duration timeout, core::Clock* clock,
    const std::function<void(AgentClient&, std::function<void(T)>)>& start) {
  auto answers = std::make_shared<Answers<T>>(agents.size(), timeout);
  const absl::Time deadline = clock->Now() + timeout;
  for (size_t i = 0; i < agents.size(); ++i) {
    start(*clients.For(agents[i]), [answers, i](T result) {
      absl::MutexLock lock(&answers->mu);
      if (answers->closed || answers->answered[i]) return;
      answers->answered[i] = true;
      answers->results[i] = std::move(result);
      answers->remaining--;
    });
  }
  absl::MutexLock lock(&answers->mu);
  auto all_answered = [&answers]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(answers->mu) {
    return answers->remaining == 0;
  };
  clock->AwaitWithDeadline(&answers->mu, absl::Condition(&all_answered),
                           deadline);
  answers->closed = true;
  return answers->results;
}

}  // namespace

std::vector<absl::StatusOr<v1::AgentInfo>> DescribeAll(
    AgentClients& clients, const std::vector<v1::AgentInfo>& agents,
    absl::Duration timeout, core::Clock* clock) {
  using T = absl::StatusOr<v1::AgentInfo>;
  return FanOut<T>(clients, agents, timeout, clock,
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
      clients, agents, timeout, clock,
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
      clients, agents, timeout, clock,
      [&request, timeout](AgentClient& client, std::function<void(T)> done) {
        client.GetFlightRecords(request, timeout, std::move(done));
      });
}

}  // namespace fabricpulse::coordinator
