#include "daemon/coordinator/scheduler.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "daemon/core/log.h"

namespace fabricpulse::coordinator {

int MarkDue(std::vector<ScheduleState>& states, absl::Time now) {
  int due = 0;
  for (ScheduleState& s : states) {
    if (s.next > now) continue;
    if (!s.pending) due++;
    s.pending = true;
    s.next = s.schedule.cron.Next(now);
  }
  return due;
}

Scheduler::Scheduler(std::vector<core::ScheduleConfig> schedules, RunFn run,
                     absl::Duration busy_retry)
    : run_(std::move(run)), busy_retry_(busy_retry) {
  const absl::Time now = absl::Now();
  for (auto& s : schedules) {
    ScheduleState state;
    state.next = s.cron.Next(now);
    state.schedule = std::move(s);
    states_.push_back(std::move(state));
  }
}

Scheduler::~Scheduler() { Stop(); }

void Scheduler::Start() {
  if (states_.empty()) return;
  thread_ = std::thread([this] { Loop(); });
}

void Scheduler::RequestStop() {
  absl::MutexLock lock(&mu_);
  stopping_ = true;
}

void Scheduler::Stop() {
  RequestStop();
  if (thread_.joinable()) thread_.join();
}

void Scheduler::Loop() {
  absl::MutexLock lock(&mu_);
  while (!stopping_) {
    const int due = MarkDue(states_, absl::Now());
    if (due > 0) FP_LOG_DEBUG(absl::StrCat(due, " schedule(s) due"));
    bool retry_soon = false;
    for (ScheduleState& s : states_) {
      if (!s.pending || stopping_) continue;
      const core::ScheduleConfig schedule = s.schedule;
      mu_.Unlock();
      absl::Status status = run_(schedule);
      mu_.Lock();
      if (status.code() == absl::StatusCode::kResourceExhausted) {
        FP_LOG_INFO(absl::StrCat("schedule ", schedule.name,
                                 ": members busy; queued (once)"));
        retry_soon = true;
        continue;
      }
      s.pending = false;
      FP_LOG_INFO(absl::StrCat("schedule ", schedule.name, " ran plan ",
                               schedule.plan, ": ",
                               status.ok() ? "succeeded" : status.ToString()));
    }
    absl::Time wake = absl::InfiniteFuture();
    for (const ScheduleState& s : states_) wake = std::min(wake, s.next);
    if (retry_soon) wake = std::min(wake, absl::Now() + busy_retry_);
    mu_.AwaitWithDeadline(absl::Condition(&stopping_), wake);
  }
}

}  // namespace fabricpulse::coordinator
