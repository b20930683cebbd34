#include "daemon/coordinator/sweep_runner.h"

#include <algorithm>
#include <optional>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "daemon/common/spec_convert.h"
#include "daemon/coordinator/agent_fan_out.h"
#include "daemon/coordinator/busy_gpus.h"
#include "daemon/core/byte_size.h"
#include "daemon/core/log.h"
#include "daemon/core/op_traits.h"
#include "daemon/core/status_reason.h"
#include "daemon/core/step_merge.h"

namespace fabricpulse::coordinator {
namespace {  // An agent ended the sweep because its coordinator stopped
             // answering (the
// sweep lease): the root cause of whatever its peers' ranks saw after it
// aborted (a reset connection), so it is the error the sweep keeps.
bool IsLeaseEnd(const absl::Status& status) {
  return core::ReasonOf(status) == core::StatusReason::kSweepLeaseEnded;
}

}  // namespace

absl::Status SweepRunner::Inbox::Admit(int agent, const std::string& node,
                                       const v1::RankEvent& event) {
  const int nranks = static_cast<int>(agent_of_rank.size());
  auto fail = [&](absl::StatusCode code, absl::string_view why) {
    absl::Status status(
        code, absl::StrCat("node ", node, " sent an event out of bounds: ", why,
                           " (each rank reports its communicator once and "
                           "each of the ",
                           steps,
                           " steps once, in order); a broken agent, or not "
                           "a FabricPulse agent"));
    if (rogue.ok()) {
      rogue = status;
      FP_LOG_ERROR(status.message());
    }
    return status;
  };
  const int rank = event.has_comm_ready() ? event.comm_ready().rank()
                   : event.has_step()     ? event.step().timing().rank()
                                          : -1;
  if (!event.has_comm_ready() && !event.has_step()) {
    return fail(absl::StatusCode::kInvalidArgument, "an empty event");
  }
  if (rank < 0 || rank >= nranks || agent_of_rank[rank] != agent) {
    return fail(absl::StatusCode::kInvalidArgument,
                absl::StrCat("rank ", rank, " is not one of its ranks"));
  }
  if (event.has_comm_ready()) {
    if (comm_ready[rank]) {
      return fail(
          absl::StatusCode::kResourceExhausted,
          absl::StrCat("rank ", rank, " reported its communicator twice"));
    }
    comm_ready[rank] = true;
    return absl::OkStatus();
  }
  const int index = event.step().step_index();
  if (index < 0 || index >= steps) {
    return fail(absl::StatusCode::kInvalidArgument,
                absl::StrCat("rank ", rank, " reported step ", index,
                             " of a sweep of ", steps, " steps"));
  }
  if (index < next_step[rank]) {
    return fail(absl::StatusCode::kResourceExhausted,
                absl::StrCat("rank ", rank, " reported step ", index,
                             " after step ", next_step[rank] - 1));
  }
  next_step[rank] = index + 1;
  return absl::OkStatus();
}

void SweepRunner::TakeAgentEnd(const AgentEvent& item, Progress& p) {
  p.agents_done++;
  if (item.status.ok()) return;
  if (p.outcome.ok() || (IsLeaseEnd(item.status) && !IsLeaseEnd(p.outcome) &&
                         !IsPreempted(p.outcome))) {
    p.outcome = core::Prefixed(
        item.status,
        absl::StrCat("node ", plan_.agents[item.agent].node_name(), ": "));
  }
}

SweepRunner::SweepRunner(SweepPlan plan, AgentClients* clients,
                         core::Clock* clock,
                         const core::TimeoutBudget& timeouts)
    : plan_(std::move(plan)),
      clients_(clients),
      clock_(clock),
      timeouts_(timeouts) {}

std::vector<std::vector<v1::RankAssignment>> SweepRunner::AssignRanks(
    const std::vector<v1::AgentInfo>& agents) {
  std::vector<std::vector<v1::RankAssignment>> out;
  int rank = 0;
  for (const v1::AgentInfo& agent : agents) {
    std::vector<v1::RankAssignment> ranks;
    for (const v1::WorkerInfo& w : agent.workers()) {
      v1::RankAssignment a;
      a.set_local_index(w.local_index());
      a.set_rank(rank++);
      ranks.push_back(a);
    }
    out.push_back(ranks);
  }
  return out;
}

void SweepRunner::Abort(absl::string_view reason) {
  absl::MutexLock lock(&inbox_->mu);  // wakes Run()
  if (inbox_->stop.ok()) inbox_->stop = absl::AbortedError(reason);
}

void SweepRunner::Cancel() {
  absl::MutexLock lock(&inbox_->mu);  // wakes Run()
  if (inbox_->stop.ok()) {
    inbox_->stop = absl::CancelledError("client cancelled the sweep");
  }
}

std::vector<bool> SweepRunner::AbortAgents(common::AbortCause cause) {
  const std::vector<absl::Status> statuses =
      AbortAll(*clients_, plan_.agents, plan_.comm_id, cause,
               timeouts_.AgentRpc(), clock_);
  std::vector<bool> answered(statuses.size(), false);
  for (size_t i = 0; i < statuses.size(); ++i) {
    answered[i] = statuses[i].ok();
    if (!statuses[i].ok()) {
      FP_LOG_WARNING(absl::StrCat("abort on node ", plan_.agents[i].node_name(),
                                  ": ", statuses[i].message()));
    }
  }
  return answered;
}

void SweepRunner::Drain(const std::vector<bool>& answered, Progress& p) {
  // An agent's stream ends only once its workers have returned, so waiting
  // for the streams means the members are really free when the caller
  // releases them. An agent that did not answer the abort (dead, or cut
  // off) cannot say when its workers are free: its stream is cut now, and
  // its own sweep lease frees them. Streams still open after the bound are
  // cut too.
  for (size_t i = 0; i < answered.size(); ++i) {
    if (!answered[i]) streams_[i]->Cancel();
  }
  const int nagents = static_cast<int>(plan_.agents.size());
  const absl::Time deadline = clock_->Now() + timeouts_.Drain();
  Inbox& inbox = *inbox_;
  absl::MutexLock lock(&inbox.mu);
  while (p.agents_done < nagents) {
    auto has_events = [&inbox]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(inbox.mu) {
      return !inbox.queue.empty();
    };
    if (!clock_->AwaitWithDeadline(&inbox.mu, absl::Condition(&has_events),
                                   deadline)) {
      break;
    }
    for (const AgentEvent& item : inbox.queue) {
      if (item.done) TakeAgentEnd(item, p);
    }
    inbox.queue.clear();
  }
}

v1::SweepEvent SweepRunner::StartedEvent() const {
  v1::SweepEvent event;
  v1::SweepStarted* started = event.mutable_started();
  started->set_sweep_id(plan_.sweep_id);
  started->set_nranks(plan_.nranks);
  started->set_backend(plan_.backend);
  started->set_comm_id(plan_.comm_id);
  *started->mutable_spec() = plan_.spec;
  started->set_plan(plan_.plan_name);
  started->set_steps(static_cast<int>(plan_.steps.size()));
  for (const v1::AgentInfo& a : plan_.agents) started->add_nodes(a.node_name());
  for (const v1::RankPlacement& r : plan_.ranks) *started->add_ranks() = r;
  return event;
}

void SweepRunner::StartStreams() {
  const auto assignments = AssignRanks(plan_.agents);
  {
    absl::MutexLock lock(&inbox_->mu);
    inbox_->steps = static_cast<int>(plan_.steps.size());
    inbox_->agent_of_rank.assign(plan_.nranks, -1);
    for (size_t i = 0; i < assignments.size(); ++i) {
      for (const auto& a : assignments[i]) {
        if (a.rank() >= 0 && a.rank() < plan_.nranks) {
          inbox_->agent_of_rank[a.rank()] = static_cast<int>(i);
        }
      }
    }
    inbox_->next_step.assign(plan_.nranks, 0);
    inbox_->comm_ready.assign(plan_.nranks, false);
  }
  for (size_t i = 0; i < plan_.agents.size(); ++i) {
    v1::AgentSweepRequest req;
    req.set_sweep_id(plan_.sweep_id);
    req.set_comm_id(plan_.comm_id);
    req.set_nranks(plan_.nranks);
    *req.mutable_spec() = plan_.spec;
    for (const auto& a : assignments[i]) *req.add_ranks() = a;
    req.set_coordinator(plan_.coordinator_address);
    req.set_membership_epoch(plan_.membership_epoch);
    req.set_lease_seconds(absl::ToDoubleSeconds(plan_.lease));
    req.set_allow_busy(plan_.allow_busy);
    req.set_plan(plan_.plan_name);
    const int agent = static_cast<int>(i);
    AgentSweepCallbacks callbacks;
    callbacks.on_event =
        [inbox = inbox_, agent,
         node = plan_.agents[i].node_name()](const v1::RankEvent& e) {
          absl::MutexLock lock(&inbox->mu);
          // The agent yields: the sweep ends as on an abort, preempted. Only
          // the first reason to stop counts, so this is bounded too.
          if (e.has_preempted()) {
            if (inbox->stop.ok()) {
              inbox->stop = PreemptedError(
                  {node, e.preempted().gpu(), e.preempted().other_processes()});
            }
            return;
          }
          // Checked on arrival: an event out of bounds is never queued.
          if (!inbox->rogue.ok() || !inbox->Admit(agent, node, e).ok()) return;
          inbox->queue.push_back({agent, false, absl::OkStatus(), e});
        };
    callbacks.on_done = [inbox = inbox_, agent](const absl::Status& status) {
      absl::MutexLock lock(&inbox->mu);
      inbox->queue.push_back({agent, true, status, {}});
    };
    streams_.push_back(
        clients_->For(plan_.agents[i])->RunSweep(req, std::move(callbacks)));
  }
}

void SweepRunner::Apply(const std::vector<AgentEvent>& batch,
                        const SweepSink& sink, Progress& p) {
  for (const AgentEvent& item : batch) {
    if (item.done) {
      TakeAgentEnd(item, p);
    } else if (item.event.has_comm_ready()) {
      p.ready++;
      p.all_reused = p.all_reused && item.event.comm_ready().reused();
      p.max_init = std::max(p.max_init, item.event.comm_ready().init_seconds());
      if (p.ready == plan_.nranks) {
        v1::SweepEvent event;
        event.mutable_comm_ready()->set_reused(p.all_reused);
        event.mutable_comm_ready()->set_init_seconds(p.max_init);
        if (!sink(event)) p.outcome = absl::CancelledError("client went away");
      }
    } else if (item.event.has_step()) {
      const int index = item.event.step().step_index();
      if (index >= 0 && index < static_cast<int>(p.timings.size())) {
        p.timings[index].push_back(
            common::TimingFromProto(item.event.step().timing()));
      }
    }
  }
  // A step is merged and sent once every rank has reported it, in order.
  while (p.outcome.ok() && p.next_emit < p.timings.size() &&
         static_cast<int>(p.timings[p.next_emit].size()) == plan_.nranks) {
    core::MergedStep merged = core::MergeStep(
        plan_.steps[p.next_emit], p.timings[p.next_emit], plan_.nranks);
    if (!merged.iterations_agree) {
      // Ranks of one collective always run the same count (adaptive mode
      // agrees on it): anything else is a broken invariant.
      p.outcome = absl::InternalError(absl::StrCat(
          "step ", p.next_emit,
          ": the ranks report different iteration counts; a rank ran a "
          "different worker version or a broken stop rule"));
      break;
    }
    if (plan_.steps[p.next_emit].round < 0 && plan_.nranks > 1) {
      // A collective's figure no path can carry: the sweep's results are
      // not to be believed (pairs are judged apart, by the matrix; one
      // rank's bytes cross no link: a copy on its own GPU can run at memory
      // speed).
      const core::Step& step = plan_.steps[p.next_emit];
      if (std::optional<std::string> beyond = core::BeyondPhysicalLimit(
              merged.busbw, plan_.path, plan_.physical_limits,
              plan_.gpu_models)) {
        p.outcome = absl::DataLossError(absl::StrCat(
            "step ", p.next_emit, " (", core::OpName(step.op), " ",
            core::FormatByteSize(step.bytes), "): ", *beyond,
            ": rejected; a worker or agent reports false figures"));
        break;
      }
    }
    for (v1::StepResult& result : p.pair_hold.Take(
             merged, common::MergedToProto(merged), p.timings[p.next_emit])) {
      v1::SweepEvent event;
      *event.mutable_result() = std::move(result);
      if (!sink(event)) {
        p.outcome = absl::CancelledError("client went away");
        break;
      }
    }
    p.next_emit++;
  }
}

absl::Status SweepRunner::Run(const SweepSink& sink) {
  if (!sink(StartedEvent())) return absl::CancelledError("client went away");
  StartStreams();
  const int nagents = static_cast<int>(plan_.agents.size());
  Progress p(plan_.nranks, plan_.rank_locations);
  p.timings.resize(plan_.steps.size());
  const absl::Duration silence_limit =
      timeouts_.Silence(plan_.op_timeout, plan_.iterations_per_step);
  absl::Time last_progress = clock_->Now();
  while (p.outcome.ok() && p.agents_done < nagents) {
    std::vector<AgentEvent> batch;
    absl::Status stop;
    {
      Inbox& inbox = *inbox_;
      absl::MutexLock lock(&inbox.mu);
      auto ready_to_act = [&inbox]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(inbox.mu) {
        return !inbox.queue.empty() || !inbox.stop.ok() || !inbox.rogue.ok();
      };
      clock_->AwaitWithDeadline(&inbox.mu, absl::Condition(&ready_to_act),
                                last_progress + silence_limit);
      batch.swap(inbox.queue);
      stop = inbox.rogue.ok() ? inbox.stop : inbox.rogue;
    }
    const absl::Time now = clock_->Now();
    if (!batch.empty()) last_progress = now;
    Apply(batch, sink, p);
    if (!p.outcome.ok()) break;
    if (!stop.ok()) {
      p.outcome = stop;
    } else if (now - last_progress >= silence_limit) {
      p.outcome = absl::DeadlineExceededError(absl::StrCat(
          "no rank reported for ", absl::FormatDuration(silence_limit),
          " (per-op timeout ", absl::FormatDuration(plan_.op_timeout), ")"));
    }
  }
  if (p.outcome.ok() && p.next_emit != plan_.steps.size()) {
    p.outcome =
        absl::InternalError(absl::StrCat("agents finished after ", p.next_emit,
                                         " of ", plan_.steps.size(), " steps"));
  }
  if (!p.outcome.ok()) {
    // An operator's abort, a client that went away and a yield to a foreign
    // GPU process end work on request; anything else is a failure.
    const bool requested = p.outcome.code() == absl::StatusCode::kAborted ||
                           p.outcome.code() == absl::StatusCode::kCancelled ||
                           IsPreempted(p.outcome);
    if (on_failure_ && !requested) on_failure_(p.outcome);
    Drain(AbortAgents(requested ? common::AbortCause::kRequest
                                : common::AbortCause::kFailure),
          p);
    // A yielding agent sends `preempted` before it aborts its ranks, so a
    // peer's error caused by that abort normally arrives later; when one
    // wins the race, the yield is still the root cause.
    if (!requested) {
      absl::MutexLock lock(&inbox_->mu);
      if (IsPreempted(inbox_->stop)) p.outcome = inbox_->stop;
    }
  }
  for (auto& stream : streams_) stream->Cancel();
  return p.outcome;
}

}  // namespace fabricpulse::coordinator
