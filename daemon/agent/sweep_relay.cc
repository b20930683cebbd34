#include "daemon/agent/sweep_relay.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "daemon/agent/worker_fan_out.h"
#include "daemon/agent/worker_liveness.h"
#include "daemon/core/log.h"
#include "daemon/core/sweep_spec.h"

namespace fabricpulse::agent {
namespace {

// How often the coordinator's cancellation and the lease are looked at.
constexpr absl::Duration kPoll = absl::Milliseconds(100);
// How often each running worker is pinged.
constexpr absl::Duration kPingInterval = absl::Milliseconds(500);

}  // namespace

SweepRelay::SweepRelay(const v1::AgentSweepRequest& request,
                       std::string node_name, LocalWorkers* workers,
                       CoordinatorContact* contact, core::Clock* clock,
                       const core::TimeoutBudget& timeouts)
    : request_(request),
      node_name_(std::move(node_name)),
      workers_(workers),
      contact_(contact),
      clock_(clock),
      timeouts_(timeouts) {}

void SweepRelay::StartStreams() {
  {
    absl::MutexLock lock(&inbox_->mu);
    inbox_->running = static_cast<int>(targets_.size());
    inbox_->done.assign(targets_.size(), false);
  }
  for (size_t i = 0; i < targets_.size(); ++i) {
    const Target& target = targets_[i];
    v1::WorkerSweepRequest wreq;
    wreq.set_sweep_id(request_.sweep_id());
    wreq.set_comm_id(request_.comm_id());
    wreq.set_rank(target.rank);
    wreq.set_nranks(request_.nranks());
    *wreq.mutable_spec() = request_.spec();
    wreq.set_coordinator(request_.coordinator());
    WorkerSweepCallbacks callbacks;
    callbacks.on_event = [inbox = inbox_](const v1::RankEvent& event) {
      if (event.has_preempted()) return;  // the agent's to send, never a rank's
      absl::MutexLock lock(&inbox->mu);
      inbox->events.push_back(event);
    };
    callbacks.on_done = [inbox = inbox_, i, rank = target.rank,
                         node = node_name_](const absl::Status& status) {
      absl::MutexLock lock(&inbox->mu);
      inbox->running--;
      inbox->done[i] = true;
      if (status.ok() || !inbox->first_error.ok()) return;
      inbox->first_error =
          status.code() == absl::StatusCode::kUnavailable
              ? absl::UnavailableError(absl::StrCat(
                    "rank ", rank, " on node ", node,
                    ": worker unreachable or died: ", status.message()))
              : status;
    };
    streams_.push_back(target.client->RunSweep(wreq, std::move(callbacks)));
  }
}

void SweepRelay::KillStuck(KillCause cause) {
  std::vector<size_t> stuck;
  {
    absl::MutexLock lock(&inbox_->mu);
    for (size_t i = 0; i < targets_.size(); ++i) {
      if (!inbox_->done[i]) stuck.push_back(i);
    }
  }
  for (size_t i : stuck) {
    streams_[i]->Cancel();
    workers_->Kill(
        targets_[i].local_index,
        absl::StrCat("rank ", targets_[i].rank, " did not return within ",
                     absl::FormatDuration(timeouts_.kill_grace),
                     " of the abort (stopped or stuck): killed and "
                     "respawned",
                     cause == KillCause::kAbortRequested
                         ? " (the abort was requested: not counted as a "
                           "restart)"
                         : ""),
        cause);
  }
}

absl::Status SweepRelay::Run(
    const std::function<bool(const v1::RankEvent&)>& sink,
    const std::function<StopCause()>& stop) {
  const absl::Time arrived = clock_->Now();
  const absl::Duration lease = request_.lease_seconds() > 0
                                   ? absl::Seconds(request_.lease_seconds())
                                   : timeouts_.lease;
  for (const v1::RankAssignment& a : request_.ranks()) {
    auto client = workers_->Ready(a.local_index());
    if (client == nullptr) {
      return absl::UnavailableError(absl::StrCat(
          "node ", node_name_, " worker ", a.local_index(), " (rank ", a.rank(),
          ") is not ready (starting or restarting)"));
    }
    targets_.push_back({a.rank(), a.local_index(), std::move(client)});
  }
  StartStreams();
  // A worker that answers no ping for the op timeout plus one ping's bound
  // is stopped or wedged: --timeout bounds one op, never a whole step.
  const absl::Duration op_timeout =
      request_.spec().timeout_seconds() > 0
          ? absl::Seconds(request_.spec().timeout_seconds())
          : core::kDefaultOpTimeout;
  const absl::Duration silence_limit = op_timeout + timeouts_.worker_rpc;
  std::vector<std::shared_ptr<WorkerClient>> clients;
  for (const Target& t : targets_) clients.push_back(t.client);
  WorkerLiveness liveness(std::move(clients), arrived, kPingInterval,
                          timeouts_.worker_rpc);
  std::vector<bool> running(targets_.size(), true);

  // A worker that has not returned within the kill grace of the abort is
  // stopped or stuck inside the library: it is killed and respawned, so the
  // agent never hangs and the GPU is freed.
  absl::Status failure;  // a local reason to end the sweep early
  bool stopped = false, aborted = false, killed = false;
  // Why the coordinator stopped the sweep, and whether something failed
  // here first (a rank error not caused by an abort, the lease): a worker
  // killed after an operator's request is not a fault unless so.
  StopCause stop_cause = StopCause::kNone;
  bool local_fault = false;
  absl::Time aborted_at = absl::InfiniteFuture();
  while (true) {
    std::vector<v1::RankEvent> batch;
    bool all_done;
    absl::Status rank_error;
    {
      Inbox& inbox = *inbox_;
      absl::MutexLock lock(&inbox.mu);
      auto ready = [&inbox]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(inbox.mu) {
        return !inbox.events.empty() || inbox.running == 0;
      };
      clock_->AwaitWithDeadline(&inbox.mu, absl::Condition(&ready),
                                clock_->Now() + kPoll);
      batch.swap(inbox.events);
      all_done = inbox.running == 0;
      rank_error = inbox.first_error;
      for (size_t i = 0; i < running.size(); ++i) running[i] = !inbox.done[i];
    }
    for (const v1::RankEvent& event : batch) {
      if (!rank_error.ok() || !failure.ok() || stopped) break;
      if (!sink(event)) stopped = true;  // the coordinator went away
    }
    if (all_done) break;
    const absl::Time now = clock_->Now();
    if (!aborted && rank_error.ok() && failure.ok()) {
      absl::Status held =
          contact_->CheckLease(request_.sweep_id(), arrived, lease, now);
      if (!held.ok()) {
        FP_LOG_WARNING(absl::StrCat("sweep ", request_.sweep_id(), " on node ",
                                    node_name_, ": ", held.message(),
                                    "; aborting its workers"));
        failure = held;
      }
    }
    if (!aborted && rank_error.ok() && failure.ok()) {
      liveness.Poll(running, now, [clock = clock_] { return clock->Now(); });
      if (auto silent = liveness.Silent(running, silence_limit, now)) {
        const Target& t = targets_[silent->worker];
        failure = absl::DeadlineExceededError(absl::StrFormat(
            "rank %d on node %s: worker %d answered nothing for %.1f s "
            "(stopped or hung; per-op timeout %.0f s)",
            t.rank, node_name_, t.local_index,
            absl::ToDoubleSeconds(silent->silent),
            absl::ToDoubleSeconds(op_timeout)));
        FP_LOG_WARNING(absl::StrCat("sweep ", request_.sweep_id(), ": ",
                                    failure.message()));
      }
    }
    if (stop_cause == StopCause::kNone) {
      stop_cause = stop();
      if (stop_cause != StopCause::kNone) stopped = true;
    }
    if (!stopped && !aborted && rank_error.ok() && failure.ok() &&
        yield_check_) {
      preempted_ = yield_check_();
      if (preempted_) {
        FP_LOG_INFO(absl::StrCat(
            "sweep ", request_.sweep_id(), " on node ", node_name_, ": GPU ",
            preempted_->gpu(), " has ", preempted_->other_processes(),
            " compute process(es) that are not ours (NVML): yielding"));
        v1::RankEvent event;
        *event.mutable_preempted() = *preempted_;
        sink(event);
        stop_cause = StopCause::kRequest;
        stopped = true;
      }
    }
    if (!aborted && (!rank_error.ok() || !failure.ok() || stopped)) {
      aborted = true;
      // A rank that ended ABORTED or CANCELLED was ended by an abort (the
      // coordinator's reaches the workers directly, sometimes before this
      // loop sees it): not a failure of its own.
      local_fault =
          !failure.ok() || (!rank_error.ok() && !absl::IsAborted(rank_error) &&
                            !absl::IsCancelled(rank_error));
      aborted_at = now;
      AbortLocalWorkers(*workers_, request_.comm_id(), timeouts_.worker_rpc,
                        clock_);
    }
    if (aborted && !killed &&
        clock_->Now() - aborted_at > timeouts_.kill_grace) {
      killed = true;
      if (stop_cause == StopCause::kNone) stop_cause = stop();
      KillStuck(!local_fault && stop_cause == StopCause::kRequest
                    ? KillCause::kAbortRequested
                    : KillCause::kFault);
    }
  }
  if (!failure.ok()) return failure;
  if (preempted_) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "preempted: node ", node_name_, " GPU ", preempted_->gpu(), ": ",
        preempted_->other_processes(),
        " compute process(es) that are not FabricPulse workers (NVML); the "
        "sweep yielded"));
  }
  absl::MutexLock lock(&inbox_->mu);
  if (!inbox_->first_error.ok()) return inbox_->first_error;
  if (stopped) return absl::CancelledError("sweep cancelled");
  return absl::OkStatus();
}

}  // namespace fabricpulse::agent
