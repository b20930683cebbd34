#include "daemon/coordinator/sweep_runner.h"

#include <algorithm>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "daemon/common/grpc_status.h"
#include "daemon/common/spec_convert.h"
#include "daemon/core/log.h"
#include "daemon/core/step_merge.h"

namespace fabricpulse::coordinator {
namespace {

// An agent's Abort returns within about a second (its workers' abort RPCs
// are bounded by 1 s, in parallel).
constexpr absl::Duration kAbortRpcTimeout = absl::Seconds(3);
constexpr absl::Duration kPollInterval = absl::Milliseconds(100);
// Slack over the workers' own per-op deadlines before the coordinator
// gives up on a silent sweep.
constexpr absl::Duration kSilenceSlack = absl::Seconds(15);
// How long an aborted sweep's agents get to wind their workers down.
constexpr absl::Duration kDrainTimeout = absl::Seconds(10);

}  // namespace

SweepRunner::SweepRunner(SweepPlan plan, common::ChannelPool* channels)
    : plan_(std::move(plan)), channels_(channels) {}

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

void SweepRunner::ReadAgent(int index, v1::AgentSweepRequest request) {
  const v1::AgentInfo& agent = plan_.agents[index];
  auto stub = v1::AgentService::NewStub(channels_->Get(agent.address()));
  auto reader = stub->RunSweep(contexts_[index].get(), request);
  AgentEvent item;
  item.agent = index;
  while (reader->Read(&item.event)) {
    absl::MutexLock lock(&mu_);
    queue_.push_back(item);
  }
  item.done = true;
  item.status = reader->Finish();
  absl::MutexLock lock(&mu_);
  queue_.push_back(item);
}

void SweepRunner::Abort() {
  abort_requested_ = true;
  absl::MutexLock lock(&mu_);  // wakes Run()
}

std::vector<bool> SweepRunner::AbortAgents() {
  std::vector<std::thread> threads;
  std::vector<bool> answered(plan_.agents.size(), false);
  for (size_t i = 0; i < plan_.agents.size(); ++i) {
    threads.emplace_back([this, i, &answered] {
      const v1::AgentInfo& agent = plan_.agents[i];
      auto stub = v1::AgentService::NewStub(channels_->Get(agent.address()));
      grpc::ClientContext ctx;
      ctx.set_deadline(absl::ToChronoTime(absl::Now() + kAbortRpcTimeout));
      v1::AgentAbortRequest req;
      req.set_comm_id(plan_.comm_id);
      v1::AgentAbortResponse resp;
      grpc::Status status = stub->Abort(&ctx, req, &resp);
      answered[i] = status.ok();
      if (!status.ok()) {
        FP_LOG_WARNING(absl::StrCat("abort on node ", agent.node_name(), ": ",
                                    status.error_message()));
      }
    });
  }
  for (std::thread& t : threads) t.join();
  return answered;
}

absl::Status SweepRunner::Run(const SweepSink& sink,
                              const std::function<bool()>& client_cancelled) {
  const auto assignments = AssignRanks(plan_.agents);
  v1::SweepEvent started;
  started.mutable_started()->set_sweep_id(plan_.sweep_id);
  started.mutable_started()->set_nranks(plan_.nranks);
  started.mutable_started()->set_backend(plan_.backend);
  started.mutable_started()->set_comm_id(plan_.comm_id);
  *started.mutable_started()->mutable_spec() = plan_.spec;
  started.mutable_started()->set_plan(plan_.plan_name);
  for (const v1::AgentInfo& a : plan_.agents) {
    started.mutable_started()->add_nodes(a.node_name());
  }
  if (!sink(started)) return absl::CancelledError("client went away");

  std::vector<std::thread> readers;
  for (size_t i = 0; i < plan_.agents.size(); ++i) {
    contexts_.push_back(std::make_unique<grpc::ClientContext>());
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
    readers.emplace_back(
        [this, i, req]() { ReadAgent(static_cast<int>(i), req); });
  }

  const int nagents = static_cast<int>(plan_.agents.size());
  std::vector<std::vector<core::RankStepTiming>> timings(plan_.steps.size());
  size_t next_emit = 0;
  int ready = 0, agents_done = 0;
  bool all_reused = true;
  double max_init = 0;
  absl::Status outcome;
  const absl::Duration silence_limit =
      plan_.op_timeout * plan_.iterations_per_step + kSilenceSlack;
  absl::Time last_progress = absl::Now();

  while (outcome.ok() && agents_done < nagents) {
    std::vector<AgentEvent> batch;
    {
      absl::MutexLock lock(&mu_);
      auto ready_to_act = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return !queue_.empty() || abort_requested_.load();
      };
      mu_.AwaitWithTimeout(absl::Condition(&ready_to_act), kPollInterval);
      batch.swap(queue_);
    }
    if (!batch.empty()) last_progress = absl::Now();
    for (const AgentEvent& item : batch) {
      const std::string& node = plan_.agents[item.agent].node_name();
      if (item.done) {
        agents_done++;
        if (!item.status.ok() && outcome.ok()) {
          absl::Status s = common::FromGrpcStatus(item.status);
          outcome = absl::Status(
              s.code(), absl::StrCat("node ", node, ": ", s.message()));
        }
      } else if (item.event.has_comm_ready()) {
        ready++;
        all_reused = all_reused && item.event.comm_ready().reused();
        max_init = std::max(max_init, item.event.comm_ready().init_seconds());
        if (ready == plan_.nranks) {
          v1::SweepEvent event;
          event.mutable_comm_ready()->set_reused(all_reused);
          event.mutable_comm_ready()->set_init_seconds(max_init);
          if (!sink(event)) outcome = absl::CancelledError("client went away");
        }
      } else if (item.event.has_step()) {
        const int index = item.event.step().step_index();
        if (index >= 0 && index < static_cast<int>(timings.size())) {
          timings[index].push_back(
              common::TimingFromProto(item.event.step().timing()));
        }
      }
    }
    while (outcome.ok() && next_emit < timings.size() &&
           static_cast<int>(timings[next_emit].size()) == plan_.nranks) {
      core::MergedStep merged = core::MergeStep(
          plan_.steps[next_emit], timings[next_emit], plan_.nranks);
      v1::SweepEvent event;
      *event.mutable_result() = common::MergedToProto(merged);
      if (!sink(event)) outcome = absl::CancelledError("client went away");
      next_emit++;
    }
    if (!outcome.ok()) break;
    if (abort_requested_) {
      outcome = absl::AbortedError("sweep aborted by request");
    } else if (client_cancelled && client_cancelled()) {
      outcome = absl::CancelledError("client cancelled the sweep");
    } else if (absl::Now() - last_progress > silence_limit) {
      outcome = absl::DeadlineExceededError(absl::StrCat(
          "no rank reported for ", absl::FormatDuration(silence_limit),
          " (per-op timeout ", absl::FormatDuration(plan_.op_timeout), ")"));
    }
  }
  if (outcome.ok() && next_emit != plan_.steps.size()) {
    outcome =
        absl::InternalError(absl::StrCat("agents finished after ", next_emit,
                                         " of ", plan_.steps.size(), " steps"));
  }
  if (!outcome.ok()) {
    if (on_failure_ && outcome.code() != absl::StatusCode::kAborted &&
        outcome.code() != absl::StatusCode::kCancelled) {
      on_failure_(outcome);
    }
    const std::vector<bool> answered = AbortAgents();
    // An agent's stream ends only once its workers have returned, so
    // waiting for the streams means the members are really free when the
    // caller releases them. Streams still open after the bound are cut. An
    // agent that did not answer the abort (dead, or cut off) cannot say
    // when its workers are free: its stream is cut now, and its own sweep
    // lease frees them.
    for (size_t i = 0; i < answered.size(); ++i) {
      if (!answered[i]) contexts_[i]->TryCancel();
    }
    const absl::Time drain_deadline = absl::Now() + kDrainTimeout;
    absl::MutexLock lock(&mu_);
    while (agents_done < nagents && absl::Now() < drain_deadline) {
      auto has_events = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return !queue_.empty();
      };
      mu_.AwaitWithDeadline(absl::Condition(&has_events), drain_deadline);
      for (const AgentEvent& item : queue_) agents_done += item.done ? 1 : 0;
      queue_.clear();
    }
  }
  for (auto& ctx : contexts_) ctx->TryCancel();
  for (std::thread& t : readers) t.join();
  return outcome;
}

}  // namespace fabricpulse::coordinator
