// One simulated agent's side of a sweep: the AgentService.RunSweep stream,
// written with the gRPC callback API, so a running sweep holds no thread.
// Per local rank one comm_ready event, then per step (core::Expand order)
// one step event per local rank, with timings from the link model.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "daemon/core/sweep_spec.h"
#include "fabricpulse/v1/agent.pb.h"
#include "grpcpp/alarm.h"
#include "grpcpp/grpcpp.h"
#include "tests/scale/fault_plan.h"
#include "tests/scale/link_model.h"
#include "tests/scale/sim_flight_log.h"

namespace fabricpulse::scale {

// What a sweep runs with; the agent fills it from the request.
struct SweepSetup {
  std::string sweep_id;
  std::string comm_id;
  int nranks = 0;
  // (local index, global rank) of each local rank, in request order.
  std::vector<std::pair<int, int>> ranks;
  std::shared_ptr<const std::vector<core::Step>> steps;
  // Warm-up plus timed iterations per step (what --pace waits per step).
  int iterations = 1;
  bool reused = false;  // the communicator counts as cached
  NodeFault fault;
  LinkModel link;
  // Wait the modeled time (communicator init, each step's iterations) on
  // gRPC timers before sending; otherwise send at once.
  bool pace = false;
  // > 0: each step waits this long instead (a fixed sweep time).
  absl::Duration step_time = absl::ZeroDuration();
};

// Deletes itself once gRPC is done with the call and no timer is pending.
// Abort() may be called from any thread until `on_done` has returned.
class SimSweepReactor final : public grpc::ServerWriteReactor<v1::RankEvent> {
 public:
  // `log` outlives the reactor. `on_done` runs once, when the call is over
  // (the owner forgets the reactor there). A non-OK `refusal` ends the
  // stream with it at once (bad request); a dead node's setup ends it with
  // UNAVAILABLE "simulated dead rank" and marks its ranks dead in `log`.
  SimSweepReactor(SweepSetup setup, grpc::Status refusal, SimFlightLog* log,
                  std::function<void(SimSweepReactor*)> on_done);

  // Begins writing; call once, from the RunSweep handler.
  void Start();
  // Ends the stream promptly with ABORTED "sweep aborted by request"
  // (no-op once ending). Never calls gRPC inline: safe under any lock.
  void Abort();
  const std::string& comm_id() const { return setup_.comm_id; }
  const std::string& sweep_id() const { return setup_.sweep_id; }

  void OnWriteDone(bool ok) override;
  void OnCancel() override;
  void OnDone() override;

 private:
  // Ends the stream with `status` (the first one set wins) once nothing is
  // in flight.
  void Stop(grpc::Status status);
  // What to do next, decided under the lock, done outside it.
  struct Next {
    enum class Action { kNone, kWrite, kWait, kFinish, kDelete };
    Action action = Action::kNone;
    grpc::Status status;           // kFinish
    grpc::Alarm* alarm = nullptr;  // kWait
    absl::Duration wait;           // kWait
  };
  // Does the next thing: a write, a paced wait, Finish, or (when a timer
  // fired after the call was over) deleting the reactor. `alarm_fired`:
  // called from the pending timer's callback.
  void Advance(bool alarm_fired = false);
  Next Decide() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Sets up the pending timer; Arm() sets it off outside the lock.
  grpc::Alarm* NewAlarm() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Arm(grpc::Alarm* alarm, absl::Duration after);

  const SweepSetup setup_;
  SimFlightLog* const log_;
  const std::function<void(SimSweepReactor*)> on_done_;

  absl::Mutex mu_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  grpc::Status stop_status_ ABSL_GUARDED_BY(mu_);
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
  bool alarm_pending_ ABSL_GUARDED_BY(mu_) = false;
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
  bool done_ ABSL_GUARDED_BY(mu_) = false;
  bool init_paced_ ABSL_GUARDED_BY(mu_) = false;
  bool hang_logged_ ABSL_GUARDED_BY(mu_) = false;
  size_t ready_sent_ ABSL_GUARDED_BY(mu_) = 0;
  size_t step_ ABSL_GUARDED_BY(mu_) = 0;
  size_t rank_in_step_ ABSL_GUARDED_BY(mu_) = 0;
  bool step_paced_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<v1::RankTiming> step_timings_ ABSL_GUARDED_BY(mu_);
  // The event being written (valid until OnWriteDone).
  v1::RankEvent out_ ABSL_GUARDED_BY(mu_);
  // Every timer of the sweep, kept until the reactor goes: a callback timer
  // must outlive its own callback's start.
  std::vector<std::unique_ptr<grpc::Alarm>> alarms_ ABSL_GUARDED_BY(mu_);
};

}  // namespace fabricpulse::scale
