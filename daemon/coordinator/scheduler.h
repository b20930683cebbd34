// Fires the config's cron schedules: each due schedule runs its plan once;
// one that comes due while its members are busy (another sweep) or while a
// member reports a busy GPU (other compute processes, unless the schedule
// has allow_busy_gpus) is queued once (never stacked) and retried until it
// runs. A run preempted by a foreign GPU process is not a failed run: it
// stays queued the same way and runs again once the GPUs are free.
#pragma once

#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "daemon/coordinator/busy_gpus.h"
#include "daemon/core/coordinator_config.h"

namespace fabricpulse::coordinator {

// Why a due schedule waits (the `reason` label of
// fabricpulse_schedule_deferred_total).
inline constexpr char kDeferredGpuBusy[] = "gpu_busy";
inline constexpr char kDeferredMembersBusy[] = "members_busy";

// The trigger the history records for a schedule's sweeps:
// "schedule:<name>".
std::string ScheduleTrigger(absl::string_view schedule_name);

// What the scheduler knows of each schedule. Pure: unit-tested with fixed
// times.
struct ScheduleState {
  core::ScheduleConfig schedule;
  absl::Time next;       // next firing time
  bool pending = false;  // fired, not yet run: queued once
  // Why the pending firing waits (kDeferredGpuBusy, kDeferredMembersBusy);
  // "" until it has been held back. Cleared by each new firing, so that
  // every firing held back is counted once.
  std::string held;
};

// Marks every schedule whose `next` is <= now as pending (once, however
// many firings were missed) and moves its `next` past `now`. Returns how
// many became pending.
int MarkDue(std::vector<ScheduleState>& states, absl::Time now);

// What the scheduler drives: the orchestrator (OrchestratorScheduleTarget) in
// production, a fake in unit tests. Called from the scheduler's thread
// without the scheduler's lock held.
class ScheduleTarget {
 public:
  virtual ~ScheduleTarget() = default;
  // The busy GPUs of the schedule's plan's members, from their last
  // heartbeats. Asked only when the schedule does not allow busy GPUs. An
  // error does not hold the schedule back: Run reports it.
  virtual absl::StatusOr<std::vector<BusyGpu>> BusyGpus(
      const core::ScheduleConfig& schedule) = 0;
  // Runs one scheduled sweep to its end (busy GPUs refused and yielded to
  // unless the schedule has allow_busy_gpus). RESOURCE_EXHAUSTED keeps the
  // schedule queued: as gpu_busy when IsGpuBusy (busy_gpus.h: refused on a
  // busy GPU, or preempted), else as members_busy; any other result ends
  // that firing.
  virtual absl::Status Run(const core::ScheduleConfig& schedule) = 0;
  // A firing of `schedule` was held back for `reason` (kDeferredGpuBusy or
  // kDeferredMembersBusy): called once per firing and reason, not on every
  // retry.
  virtual void Deferred(const core::ScheduleConfig& schedule,
                        absl::string_view reason) = 0;
};

// Thread-safe; runs one thread between Start() and Stop().
class Scheduler {
 public:
  // `target` must outlive the scheduler. Each schedule's first firing is
  // the first after `start`. A held-back schedule is retried every
  // `busy_retry`.
  Scheduler(std::vector<core::ScheduleConfig> schedules, ScheduleTarget* target,
            absl::Duration busy_retry = absl::Seconds(5),
            absl::Time start = absl::Now());
  ~Scheduler();  // Stop()

  void Start();
  // Stops firing (a running sweep goes on); does not wait.
  void RequestStop();
  void Stop();  // idempotent; waits for a running sweep to return

  // One pass at time `now`: marks due schedules pending, then for each
  // pending one, holds it back while a member's GPU is busy (unless
  // allow_busy_gpus) and otherwise runs it (to its end). Returns when the
  // next pass is due: the next firing, or now + busy_retry while one is
  // held back. The thread calls it with the real time; unit tests call it
  // directly with fixed times, without Start().
  absl::Time Tick(absl::Time now);

  // Each schedule as the scheduler holds it now, in file order: its next
  // firing, whether a firing is pending and why it is held back. Never waits
  // for a running sweep (the lock is free while one runs).
  std::vector<ScheduleState> Snapshot();

 private:
  absl::Time TickLocked(absl::Time now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Loop();

  ScheduleTarget* const target_;
  const absl::Duration busy_retry_;
  absl::Mutex mu_;
  std::vector<ScheduleState> states_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;
};

}  // namespace fabricpulse::coordinator
