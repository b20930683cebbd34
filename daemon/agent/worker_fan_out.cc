#include "daemon/agent/worker_fan_out.h"

#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "daemon/core/log.h"

namespace fabricpulse::agent {
namespace {

// Answers shared with callbacks that may run after the caller stopped
// waiting.
template <typename T>
struct Answers {
  absl::Mutex mu;
  std::vector<T> results ABSL_GUARDED_BY(mu);
  std::vector<bool> answered ABSL_GUARDED_BY(mu);
  int remaining ABSL_GUARDED_BY(mu) = 0;
};

template <typename T>
std::function<void(T)> Collector(std::shared_ptr<Answers<T>> answers,
                                 size_t i) {
  return [answers, i](T result) {
    absl::MutexLock lock(&answers->mu);
    if (answers->answered[i]) return;
    answers->answered[i] = true;
    answers->results[i] = std::move(result);
    answers->remaining--;
  };
}

template <typename T>
void WaitAll(Answers<T>& answers, absl::Time deadline, core::Clock* clock) {
  absl::MutexLock lock(&answers.mu);
  auto all = [&answers]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(answers.mu) {
    return answers.remaining == 0;
  };
  clock->AwaitWithDeadline(&answers.mu, absl::Condition(&all), deadline);
}

}  // namespace

void AbortLocalWorkers(LocalWorkers& workers, const std::string& comm_id,
                       absl::Duration timeout, core::Clock* clock) {
  auto answers = std::make_shared<Answers<absl::Status>>();
  std::vector<std::pair<int, std::shared_ptr<WorkerClient>>> ready;
  for (int i = 0; i < workers.size(); ++i) {
    if (auto client = workers.Ready(i)) ready.emplace_back(i, client);
  }
  {
    absl::MutexLock lock(&answers->mu);
    answers->results.assign(
        ready.size(), absl::DeadlineExceededError(absl::StrCat(
                          "no answer within ", absl::FormatDuration(timeout))));
    answers->answered.assign(ready.size(), false);
    answers->remaining = static_cast<int>(ready.size());
  }
  const absl::Time deadline = clock->Now() + timeout;
  v1::WorkerAbortRequest request;
  request.set_comm_id(comm_id);
  for (size_t k = 0; k < ready.size(); ++k) {
    ready[k].second->Abort(request, timeout, Collector(answers, k));
  }
  WaitAll(*answers, deadline, clock);
  absl::MutexLock lock(&answers->mu);
  for (size_t k = 0; k < ready.size(); ++k) {
    if (!answers->results[k].ok()) {
      FP_LOG_WARNING(absl::StrCat("worker ", ready[k].first,
                                  " abort: ", answers->results[k].message()));
    }
  }
}

std::vector<v1::RankFlightRecords> CollectFlightRecords(
    LocalWorkers& workers, const std::vector<std::pair<int, int>>& ranks,
    const std::string& sweep_id, absl::Duration timeout, core::Clock* clock) {
  using Answer = absl::StatusOr<v1::FlightRecordsResponse>;
  const std::vector<v1::WorkerInfo> infos = workers.Snapshot();
  std::vector<v1::RankFlightRecords> out(ranks.size());
  auto answers = std::make_shared<Answers<Answer>>();
  std::vector<std::shared_ptr<WorkerClient>> clients(ranks.size());
  {
    absl::MutexLock lock(&answers->mu);
    answers->results.assign(ranks.size(), Answer(absl::UnknownError("")));
    answers->answered.assign(ranks.size(), true);
  }
  for (size_t k = 0; k < ranks.size(); ++k) {
    const auto [local, rank] = ranks[k];
    out[k].set_rank(rank);
    out[k].set_local_index(local);
    if (local >= 0 && local < static_cast<int>(infos.size())) {
      out[k].set_gpu(infos[local].gpu());
    }
    clients[k] = workers.Ready(local);
    if (clients[k] == nullptr) {
      const std::string killed = workers.KillReason(local);
      out[k].set_reachable(false);
      out[k].set_unreachable_reason(
          killed.empty() ? "worker not running (died; restarting)" : killed);
      continue;
    }
    absl::MutexLock lock(&answers->mu);
    answers->answered[k] = false;
    answers->remaining++;
  }
  const absl::Time deadline = clock->Now() + timeout;
  v1::FlightRecordsRequest request;
  request.set_sweep_id(sweep_id);
  for (size_t k = 0; k < ranks.size(); ++k) {
    if (clients[k]) {
      clients[k]->GetFlightRecords(request, timeout, Collector(answers, k));
    }
  }
  WaitAll(*answers, deadline, clock);
  absl::MutexLock lock(&answers->mu);
  for (size_t k = 0; k < ranks.size(); ++k) {
    if (!clients[k]) continue;
    v1::RankFlightRecords& r = out[k];
    if (!answers->answered[k] || !answers->results[k].ok()) {
      const std::string why =
          answers->answered[k]
              ? std::string(answers->results[k].status().message())
              : "no answer";
      r.set_reachable(false);
      r.set_unreachable_reason(absl::StrCat(
          "worker ", r.local_index(), " did not answer within ",
          absl::FormatDuration(timeout), " (stopped or hung): ", why));
      continue;
    }
    r.set_reachable(true);
    if (r.rank() < 0) r.set_rank(answers->results[k]->rank());
    for (const auto& rec : answers->results[k]->records()) {
      *r.add_records() = rec;
    }
  }
  return out;
}

}  // namespace fabricpulse::agent
