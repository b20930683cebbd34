// Fires the config's cron schedules: each due schedule runs its plan once;
// one that comes due while its members are busy is queued once (never
// stacked) and retried until it runs.
#pragma once

#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "daemon/core/coordinator_config.h"

namespace fabricpulse::coordinator {

// What the scheduler knows of each schedule. Pure: unit-tested with fixed
// times.
struct ScheduleState {
  core::ScheduleConfig schedule;
  absl::Time next;       // next firing time
  bool pending = false;  // fired, not yet run (busy members): queued once
};

// Marks every schedule whose `next` is <= now as pending (once, however
// many firings were missed) and moves its `next` past `now`. Returns how
// many became pending.
int MarkDue(std::vector<ScheduleState>& states, absl::Time now);

// Thread-safe; runs one thread between Start() and Stop().
class Scheduler {
 public:
  // `run` runs one scheduled sweep to its end; RESOURCE_EXHAUSTED (members
  // busy) keeps the schedule queued, any other result ends that firing.
  using RunFn = std::function<absl::Status(const core::ScheduleConfig&)>;
  Scheduler(std::vector<core::ScheduleConfig> schedules, RunFn run,
            absl::Duration busy_retry = absl::Seconds(5));
  ~Scheduler();  // Stop()

  void Start();
  // Stops firing (a running sweep goes on); does not wait.
  void RequestStop();
  void Stop();  // idempotent; waits for a running sweep to return

 private:
  void Loop();

  const RunFn run_;
  const absl::Duration busy_retry_;
  absl::Mutex mu_;
  std::vector<ScheduleState> states_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;
};

}  // namespace fabricpulse::coordinator
