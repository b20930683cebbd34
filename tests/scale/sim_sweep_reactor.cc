#include "tests/scale/sim_sweep_reactor.h"

#include <algorithm>

#include "absl/time/clock.h"

namespace fabricpulse::scale {

SimSweepReactor::SimSweepReactor(SweepSetup setup, grpc::Status refusal,
                                 SimFlightLog* log,
                                 std::function<void(SimSweepReactor*)> on_done)
    : setup_(std::move(setup)), log_(log), on_done_(std::move(on_done)) {
  absl::MutexLock lock(&mu_);
  if (!refusal.ok()) {
    stopping_ = true;
    stop_status_ = refusal;
  } else if (setup_.fault.dead) {
    stopping_ = true;
    stop_status_ =
        grpc::Status(grpc::StatusCode::UNAVAILABLE, "simulated dead rank");
    log_->Dead(setup_.sweep_id, "simulated dead rank");
  }
}

void SimSweepReactor::Start() { Advance(); }

void SimSweepReactor::Stop(grpc::Status status) {
  grpc::Alarm* pending = nullptr;
  bool kick = false;
  {
    absl::MutexLock lock(&mu_);
    if (finished_ || stopping_) return;
    stopping_ = true;
    stop_status_ = std::move(status);
    if (alarm_pending_) {
      pending = alarms_.back().get();
    } else if (!writing_) {
      // Nothing in flight would call Advance(): a timer due now does, on
      // gRPC's thread rather than the caller's.
      pending = NewAlarm();
      kick = true;
    }
  }
  // The reactor is alive here: the caller is a gRPC reaction (OnDone comes
  // after it) or the agent holding the lock that OnDone needs.
  if (kick) {
    Arm(pending, absl::ZeroDuration());
  } else if (pending != nullptr) {
    pending->Cancel();  // its callback runs soon and advances
  }
}

void SimSweepReactor::Abort() {
  Stop(grpc::Status(grpc::StatusCode::ABORTED, "sweep aborted by request"));
}

grpc::Alarm* SimSweepReactor::NewAlarm() {
  alarms_.push_back(std::make_unique<grpc::Alarm>());
  alarm_pending_ = true;
  return alarms_.back().get();
}

void SimSweepReactor::Arm(grpc::Alarm* alarm, absl::Duration after) {
  alarm->Set(absl::ToChronoTime(absl::Now() + after),
             [this](bool) { Advance(/*alarm_fired=*/true); });
}

void SimSweepReactor::Advance(bool alarm_fired) {
  Next next;
  {
    absl::MutexLock lock(&mu_);
    if (alarm_fired) {
      alarm_pending_ = false;
      // OnDone ran while the timer was pending: this callback is the last
      // one to touch the reactor.
      if (done_) next.action = Next::Action::kDelete;
    }
    if (next.action == Next::Action::kNone && !finished_ && !writing_ &&
        !alarm_pending_) {
      next = Decide();
    }
  }
  switch (next.action) {
    case Next::Action::kWrite:
      StartWrite(&out_);  // out_ stays untouched until OnWriteDone
      break;
    case Next::Action::kWait:
      Arm(next.alarm, next.wait);
      break;
    case Next::Action::kFinish:
      Finish(next.status);
      break;
    case Next::Action::kDelete:
      delete this;
      break;
    case Next::Action::kNone:
      break;
  }
}

SimSweepReactor::Next SimSweepReactor::Decide() {
  Next next;
  const size_t nlocal = setup_.ranks.size();
  const size_t nsteps = setup_.steps->size();
  if (stopping_) {
    finished_ = true;
    next.action = Next::Action::kFinish;
    next.status = stop_status_;
    return next;
  }
  if (setup_.pace && !setup_.reused && !init_paced_) {
    init_paced_ = true;
    next.action = Next::Action::kWait;
    next.wait = absl::Seconds(CommInitSeconds(setup_.link, setup_.nranks));
    next.alarm = NewAlarm();
    return next;
  }
  if (ready_sent_ < nlocal) {
    out_.Clear();
    v1::CommReadyEvent* ready = out_.mutable_comm_ready();
    ready->set_rank(setup_.ranks[ready_sent_].second);
    ready->set_reused(setup_.reused);
    ready->set_init_seconds(
        setup_.reused ? 0 : CommInitSeconds(setup_.link, setup_.nranks));
    ready_sent_++;
    writing_ = true;
    next.action = Next::Action::kWrite;
    return next;
  }
  if (setup_.fault.hang) {
    // Joined the first step and never finishes it: only Abort() or a
    // cancellation ends the stream.
    if (!hang_logged_ && nsteps > 0) {
      hang_logged_ = true;
      log_->Joined(setup_.sweep_id, 0, absl::Now());
    }
    return next;
  }
  if (step_ >= nsteps) {
    finished_ = true;
    next.action = Next::Action::kFinish;
    next.status = grpc::Status::OK;
    return next;
  }
  const core::Step& step = (*setup_.steps)[step_];
  if (step_timings_.empty()) {
    for (const auto& [local, rank] : setup_.ranks) {
      step_timings_.push_back(RankTimingFor(setup_.link, step, setup_.nranks,
                                            rank, setup_.fault.slow_factor));
    }
  }
  const bool fixed = setup_.step_time > absl::ZeroDuration();
  if ((setup_.pace || fixed) && !step_paced_) {
    step_paced_ = true;
    double slowest = 0;
    for (const v1::RankTiming& t : step_timings_) {
      slowest = std::max(slowest, t.mean_seconds());
    }
    next.action = Next::Action::kWait;
    next.wait =
        fixed ? setup_.step_time : absl::Seconds(slowest * setup_.iterations);
    next.alarm = NewAlarm();
    return next;
  }
  out_.Clear();
  out_.mutable_step()->set_step_index(step.index);
  *out_.mutable_step()->mutable_timing() = step_timings_[rank_in_step_];
  if (++rank_in_step_ == step_timings_.size()) {
    log_->Completed(setup_.sweep_id, step.index, absl::Now());
    step_++;
    rank_in_step_ = 0;
    step_paced_ = false;
    step_timings_.clear();
  }
  writing_ = true;
  next.action = Next::Action::kWrite;
  return next;
}

void SimSweepReactor::OnWriteDone(bool ok) {
  {
    absl::MutexLock lock(&mu_);
    writing_ = false;
    if (!ok && !stopping_) {
      stopping_ = true;
      stop_status_ =
          grpc::Status(grpc::StatusCode::CANCELLED, "coordinator went away");
    }
  }
  Advance();
}

void SimSweepReactor::OnCancel() {
  Stop(grpc::Status(grpc::StatusCode::CANCELLED, "sweep cancelled"));
}

void SimSweepReactor::OnDone() {
  on_done_(this);
  {
    absl::MutexLock lock(&mu_);
    done_ = true;
    if (alarm_pending_) return;  // the timer's callback deletes
  }
  delete this;
}

}  // namespace fabricpulse::scale
