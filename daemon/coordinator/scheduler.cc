#include "daemon/coordinator/scheduler.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "daemon/core/log.h"

namespace fabricpulse::coordinator {

std::string ScheduleTrigger(absl::string_view schedule_name) {
  return absl::StrCat("schedule:", schedule_name);
}

int MarkDue(std::vector<ScheduleState>& states, absl::Time now) {
  int due = 0;
  for (ScheduleState& s : states) {
    if (s.next > now) continue;
    if (!s.pending) due++;
    s.pending = true;
    s.held.clear();
    s.next = s.schedule.cron.Next(now);
  }
  return due;
}

Scheduler::Scheduler(std::vector<core::ScheduleConfig> schedules,
                     ScheduleTarget* target, absl::Duration busy_retry,
                     absl::Time start)
    : target_(target), busy_retry_(busy_retry) {
  absl::MutexLock lock(&mu_);
  for (auto& s : schedules) {
    ScheduleState state;
    state.next = s.cron.Next(start);
    state.schedule = std::move(s);
    states_.push_back(std::move(state));
  }
}

Scheduler::~Scheduler() { Stop(); }

void Scheduler::Start() {
  {
    absl::MutexLock lock(&mu_);
    if (states_.empty()) return;
  }
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

absl::Time Scheduler::Tick(absl::Time now) {
  absl::MutexLock lock(&mu_);
  return TickLocked(now);
}

std::vector<ScheduleState> Scheduler::Snapshot() {
  absl::MutexLock lock(&mu_);
  return states_;
}

absl::Time Scheduler::TickLocked(absl::Time now) {
  const int due = MarkDue(states_, now);
  if (due > 0) FP_LOG_DEBUG(absl::StrCat(due, " schedule(s) due"));
  bool retry_soon = false;
  // states_ never changes size after construction: `s` stays valid while
  // the lock is released.
  for (ScheduleState& s : states_) {
    if (!s.pending || stopping_) continue;
    const core::ScheduleConfig schedule = s.schedule;
    const std::string held_before = s.held;
    mu_.Unlock();
    std::string held;
    std::string why;
    absl::Status status;
    if (!schedule.allow_busy_gpus) {
      auto busy = target_->BusyGpus(schedule);
      if (busy.ok() && !busy->empty()) {
        held = kDeferredGpuBusy;
        why = absl::StrCat("GPUs busy: ", DescribeBusyGpus(*busy));
      }
    }
    if (held.empty()) {
      status = target_->Run(schedule);
      if (IsGpuBusy(status)) {
        // Refused on a GPU that turned busy since the last heartbeat, or
        // preempted mid-sweep: not a failed run, a firing to retry.
        held = kDeferredGpuBusy;
        why = std::string(status.message());
      } else if (status.code() == absl::StatusCode::kResourceExhausted) {
        held = kDeferredMembersBusy;
        why = absl::StrCat("members busy: ", status.message());
      }
    }
    if (!held.empty() && held != held_before) {
      target_->Deferred(schedule, held);
      FP_LOG_INFO(absl::StrCat("schedule ", schedule.name, ": ", why,
                               "; queued (once), retried every ",
                               absl::FormatDuration(busy_retry_)));
    } else if (!held.empty()) {
      FP_LOG_DEBUG(absl::StrCat("schedule ", schedule.name, ": still ", why));
    } else {
      FP_LOG_INFO(absl::StrCat("schedule ", schedule.name, " ran plan ",
                               schedule.plan, ": ",
                               status.ok() ? "succeeded" : status.ToString()));
    }
    mu_.Lock();
    if (!held.empty()) {
      s.held = held;
      retry_soon = true;
      continue;
    }
    s.pending = false;
    s.held.clear();
  }
  absl::Time wake = absl::InfiniteFuture();
  for (const ScheduleState& s : states_) wake = std::min(wake, s.next);
  if (retry_soon) wake = std::min(wake, now + busy_retry_);
  return wake;
}

void Scheduler::Loop() {
  absl::MutexLock lock(&mu_);
  while (!stopping_) {
    const absl::Time wake = TickLocked(absl::Now());
    mu_.AwaitWithDeadline(absl::Condition(&stopping_), wake);
  }
}

}  // namespace fabricpulse::coordinator
