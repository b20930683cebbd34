#include "daemon/coordinator/sweep_orchestrator.h"

#include <optional>

#include "absl/strings/str_cat.h"
#include "daemon/coordinator/busy_gpus.h"
#include "daemon/coordinator/diagnose_response.h"
#include "daemon/coordinator/diagnosis_collector.h"
#include "daemon/coordinator/link_health.h"
#include "daemon/coordinator/sweep_recorder.h"
#include "daemon/core/log.h"
#include "daemon/core/name_rules.h"
#include "daemon/core/op_traits.h"
#include "daemon/core/phase_timer.h"

namespace fabricpulse::coordinator {
namespace {

IsolationStep StepOf(const core::Step& step) {
  return {std::string(core::OpName(step.op)), step.bytes, step.in_place};
}

// What the sweep's end tells an isolation (isolation_trigger.h).
SweepEnd EndOf(const SweepPlan& plan, const std::string& trigger,
               const absl::Status& status, const SweepRecorder& recorder,
               const std::vector<std::string>& nodes) {
  SweepEnd end;
  end.sweep_id = plan.sweep_id;
  end.plan = plan.plan_name;
  end.trigger = trigger;
  end.status = status;
  end.nodes = nodes;
  end.regressed = recorder.first_regression();
  const size_t done = static_cast<size_t>(recorder.results());
  if (done < plan.steps.size() && plan.steps[done].op != core::Op::kPairwise) {
    end.failed = StepOf(plan.steps[done]);
  }
  // The largest size of the first collective op.
  for (const core::Step& step : plan.steps) {
    if (step.op == core::Op::kPairwise) continue;
    if (end.largest && end.largest->op != core::OpName(step.op)) continue;
    if (!end.largest || step.bytes > end.largest->bytes) {
      end.largest = StepOf(step);
    }
  }
  return end;
}

}  // namespace

SweepOrchestrator::SweepOrchestrator(core::CoordinatorConfig config,
                                     HistoryStore* history,
                                     CoordinatorMetrics* metrics,
                                     AgentClients* clients, core::Clock* clock,
                                     const core::TimeoutBudget& timeouts)
    : config_(std::move(config)),
      timeouts_(timeouts),
      history_(history),
      metrics_(metrics),
      clients_(clients),
      clock_(clock),
      membership_(timeouts, clock,
                  MembershipLimits{config_.max_agents, core::kMaxRanks,
                                   config_.forget_lost_agents_after}),
      rendezvous_(clock),
      planner_(&config_, &membership_, &naming_, clients, clock, timeouts) {}

void SweepOrchestrator::SetAdvertisedAddress(const std::string& address) {
  absl::MutexLock lock(&mu_);
  advertised_address_ = address;
}

void SweepOrchestrator::SetSweepEndHook(
    std::function<void(const SweepEnd&)> hook) {
  absl::MutexLock lock(&mu_);
  end_hook_ = std::move(hook);
}

uint64_t SweepOrchestrator::sweeps_started() {
  absl::MutexLock lock(&mu_);
  return sweeps_started_;
}

void SweepOrchestrator::UpdateAgentMetrics() {
  const Membership::Counts counts = membership_.CountByState();
  metrics_->SetAgents(counts.alive, counts.lost);
}

void SweepOrchestrator::NodeRegistered(const std::string& node) {
  metrics_->NodeRegistered(node);
}

std::vector<v1::AgentInfo> SweepOrchestrator::AgentsWithLinkHealth() {
  std::vector<v1::AgentInfo> agents = membership_.List();
  const std::map<std::string, std::vector<std::string>> below =
      LinksBelowPeers(agents, config_.link_expectations);
  for (v1::AgentInfo& a : agents) {
    auto it = below.find(a.node_name());
    if (it != below.end()) {
      for (const std::string& line : it->second) a.add_link_findings(line);
    }
    metrics_->NodeLinks(a.node_name(), it != below.end());
  }
  return agents;
}

absl::StatusOr<std::vector<v1::AgentInfo>> SweepOrchestrator::PlanMembers(
    const std::string& plan) {
  return planner_.PlanMembers(plan);
}

absl::Status SweepOrchestrator::Execute(const v1::SweepRequest& request,
                                        const std::string& trigger,
                                        const SweepSink& sink) {
  core::PhaseTimer timer;
  std::string address;
  {
    absl::MutexLock lock(&mu_);
    address = advertised_address_;
  }
  auto planned = planner_.Plan(request, address);
  if (!planned.ok()) return planned.status();
  timer.Mark("plan");
  timer.Add("of which describe", planned->describe_time);
  const SweepPlan plan = std::move(*planned);
  // The members described themselves just now (SweepPlanner::Refresh):
  // their probes' last polls, at most one probe interval old.
  if (!plan.allow_busy) {
    const std::vector<BusyGpu> busy = FindBusyGpus(plan.agents);
    if (!busy.empty()) {
      absl::Status refused = GpusBusyError(busy);
      FP_LOG_INFO(absl::StrCat("sweep (", plan.plan_name, ", ", trigger,
                               ") refused: ", refused.message()));
      return refused;
    }
  }
  std::vector<std::string> nodes;
  for (const v1::AgentInfo& a : plan.agents) nodes.push_back(a.node_name());
  absl::Status reserved = membership_.Reserve(nodes, plan.sweep_id);
  if (!reserved.ok()) return reserved;
  // The workers' keys live here while the sweep runs (worker_service.cc
  // writes under "<comm_id>/<sweep_id>/").
  const std::string scope = absl::StrCat(plan.comm_id, "/", plan.sweep_id, "/");
  absl::Status opened = rendezvous_.OpenScope(scope, nodes, plan.nranks);
  if (!opened.ok()) {
    membership_.Release(nodes);
    return opened;
  }

  SweepRecorder recorder(plan, trigger, &config_, history_, metrics_, clock_);
  absl::Status begun = recorder.Begin();
  if (!begun.ok()) {
    rendezvous_.CloseScope(scope);
    membership_.Release(nodes);
    return begun;
  }
  timer.Mark("reserve+history");
  auto runner =
      std::make_shared<SweepRunner>(plan, clients_, clock_, timeouts_);
  {
    absl::MutexLock lock(&mu_);
    running_[plan.sweep_id] = runner;
    sweeps_started_++;
  }
  FP_LOG_INFO(absl::StrCat("sweep ", plan.sweep_id, " (", plan.plan_name, ", ",
                           trigger, ") started on ", nodes.size(), " node(s)"));
  std::optional<core::Diagnosis> diagnosis;
  runner->OnFailure([&](const absl::Status&) {
    diagnosis = CollectAndDiagnose(plan.sweep_id, plan.agents, *clients_,
                                   clock_, timeouts_);
  });
  const absl::Time start = clock_->Now();
  absl::Status status = runner->Run([&](const v1::SweepEvent& event) {
    v1::SweepEvent copy = event;
    const absl::Time record_start = clock_->Now();
    recorder.OnEvent(copy);
    if (copy.has_result()) {
      timer.Add("record results", clock_->Now() - record_start);
    }
    return sink(copy);
  });
  timer.Mark("run");
  // Ended in any way: its keys go, and a rank still waiting is told so.
  rendezvous_.CloseScope(scope);
  const absl::Duration duration = clock_->Now() - start;
  if (!status.ok()) naming_.Retire(plan.agents);
  naming_.Used(plan.agents, clock_->Now());
  // A yield is no fault: whatever a peer's error made the runner diagnose
  // first is not kept.
  if (IsPreempted(status)) diagnosis.reset();
  {
    absl::MutexLock lock(&mu_);
    running_.erase(plan.sweep_id);
  }
  membership_.Release(nodes);
  v1::SweepEvent finished = recorder.Finish(status, diagnosis, duration);
  UpdateAgentMetrics();
  FP_LOG_INFO(absl::StrCat(
      "sweep ", plan.sweep_id, " ", finished.finished().status(),
      status.ok() ? "" : ": ", status.ok() ? "" : status.message()));
  sink(finished);
  timer.Mark("finish");
  FP_LOG_DEBUG(absl::StrCat("sweep ", plan.sweep_id, ": ", timer.Summary()));
  std::function<void(const SweepEnd&)> hook;
  {
    absl::MutexLock lock(&mu_);
    hook = end_hook_;
  }
  if (hook) hook(EndOf(plan, trigger, status, recorder, nodes));
  return status;
}

absl::StatusOr<std::vector<std::string>> SweepOrchestrator::Abort(
    const std::string& sweep_id) {
  std::vector<std::string> aborted;
  absl::MutexLock lock(&mu_);
  for (auto& [id, runner] : running_) {
    if (sweep_id.empty() || sweep_id == id) {
      runner->Abort();
      aborted.push_back(id);
    }
  }
  if (aborted.empty()) {
    return absl::NotFoundError(
        sweep_id.empty() ? "no sweep is running"
                         : absl::StrCat("sweep ", core::QuotePrefix(sweep_id),
                                        " is not running"));
  }
  return aborted;
}

void SweepOrchestrator::AbortAll() {
  absl::MutexLock lock(&mu_);
  for (auto& [id, runner] : running_) {
    runner->Abort("the coordinator is shutting down");
  }
}

void SweepOrchestrator::Cancel(const std::string& sweep_id) {
  absl::MutexLock lock(&mu_);
  auto it = running_.find(sweep_id);
  if (it != running_.end()) it->second->Cancel();
}

absl::StatusOr<v1::DiagnoseResponse> SweepOrchestrator::Diagnose(
    const std::string& requested) {
  std::string sweep_id = requested;
  std::vector<v1::AgentInfo> agents;
  absl::Duration op_timeout = absl::InfiniteDuration();
  int iterations = 1;
  {
    absl::MutexLock lock(&mu_);
    for (const auto& [id, runner] : running_) {
      if (sweep_id.empty() || sweep_id == id) {
        sweep_id = id;
        agents = runner->agents();
        op_timeout = runner->plan().op_timeout;
        iterations = runner->plan().iterations_per_step;
        break;
      }
    }
  }
  if (sweep_id.empty()) {
    auto recent = history_->ListSweeps(50);
    if (recent.ok()) {
      for (const SweepRecord& r : *recent) {
        if (r.status == kSweepFailed) {
          sweep_id = r.id;
          break;
        }
      }
    }
    if (sweep_id.empty()) {
      return absl::NotFoundError("no running or failed sweep to diagnose");
    }
  }
  // The history has every sweep, the running one included: its state,
  // times, steps done and spec.
  auto sweep = history_->GetSweep(sweep_id);
  if (!sweep.ok()) return sweep.status();
  core::SweepFacts facts = FactsFromHistory(*sweep);
  if (facts.state == core::SweepState::kRunning) {
    // Unbounded (a stall only on a fault) in the moment the sweep is
    // recorded as running without a runner: just begun or just ended.
    if (op_timeout != absl::InfiniteDuration()) {
      facts.peer_wait_bound = timeouts_.PeerWait(op_timeout);
      facts.step_bound = timeouts_.StepStall(op_timeout, iterations);
    }
  } else if (!sweep->sweep.diagnosis.empty()) {
    // Taken when it failed: its members may be gone or busy since.
    auto stored = ParseStoredDiagnosis(sweep->sweep.diagnosis);
    if (stored.ok()) {
      v1::DiagnoseResponse response = ToDiagnoseResponse(
          sweep_id, core::DiagnoseStored(facts, std::move(*stored)),
          sweep->sweep.diagnosis);
      AddWrongData(*sweep, response);
      return response;
    }
    FP_LOG_WARNING(absl::StrCat("sweep ", sweep_id, ": ",
                                stored.status().message(),
                                "; reading its members' records instead"));
  }
  std::vector<core::RankReport> reports;
  if (core::NeedsRankRecords(facts.state)) {
    if (agents.empty()) {
      auto live = membership_.Select(sweep->sweep.nodes);
      if (!live.ok()) return live.status();
      agents = *live;
    }
    reports =
        CollectRankReports(sweep_id, agents, *clients_, clock_, timeouts_);
  }
  core::SweepDiagnosis d = core::DiagnoseSweep(facts, reports, clock_->Now());
  const bool judged = d.state == core::SweepState::kStalled ||
                      d.state == core::SweepState::kFailed ||
                      d.state == core::SweepState::kInterrupted;
  v1::DiagnoseResponse response =
      ToDiagnoseResponse(sweep_id, d, judged ? d.ranks.ToJson() : "");
  AddWrongData(*sweep, response);
  return response;
}

}  // namespace fabricpulse::coordinator
