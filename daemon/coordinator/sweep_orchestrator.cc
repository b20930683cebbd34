#include "daemon/coordinator/sweep_orchestrator.h"

#include <optional>

#include "absl/strings/str_cat.h"
#include "daemon/coordinator/diagnosis_collector.h"
#include "daemon/coordinator/sweep_recorder.h"
#include "daemon/core/log.h"
#include "daemon/core/phase_timer.h"

namespace fabricpulse::coordinator {

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
      membership_(timeouts, clock),
      planner_(&config_, &membership_, &naming_, clients, clock, timeouts) {}

void SweepOrchestrator::SetAdvertisedAddress(const std::string& address) {
  absl::MutexLock lock(&mu_);
  advertised_address_ = address;
}

uint64_t SweepOrchestrator::sweeps_started() {
  absl::MutexLock lock(&mu_);
  return sweeps_started_;
}

void SweepOrchestrator::UpdateAgentMetrics() {
  const Membership::Counts counts = membership_.CountByState();
  metrics_->SetAgents(counts.alive, counts.lost);
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
  const SweepPlan plan = std::move(*planned);
  std::vector<std::string> nodes;
  for (const v1::AgentInfo& a : plan.agents) nodes.push_back(a.node_name());
  absl::Status reserved = membership_.Reserve(nodes, plan.sweep_id);
  if (!reserved.ok()) return reserved;

  SweepRecorder recorder(plan, trigger, &config_, history_, metrics_, clock_);
  absl::Status begun = recorder.Begin();
  if (!begun.ok()) {
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
  const absl::Duration duration = clock_->Now() - start;
  if (!status.ok()) naming_.Retire(plan.agents);
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
                         : absl::StrCat("sweep ", sweep_id, " is not running"));
  }
  return aborted;
}

void SweepOrchestrator::AbortAll() { Abort("").IgnoreError(); }

void SweepOrchestrator::Cancel(const std::string& sweep_id) {
  absl::MutexLock lock(&mu_);
  auto it = running_.find(sweep_id);
  if (it != running_.end()) it->second->Cancel();
}

absl::StatusOr<v1::DiagnoseResponse> SweepOrchestrator::Diagnose(
    const std::string& requested) {
  v1::DiagnoseResponse response;
  // A running (perhaps hung) sweep: read its members now.
  std::vector<v1::AgentInfo> agents;
  std::string sweep_id = requested;
  {
    absl::MutexLock lock(&mu_);
    for (const auto& [id, runner] : running_) {
      if (sweep_id.empty() || sweep_id == id) {
        sweep_id = id;
        agents = runner->agents();
        break;
      }
    }
  }
  if (agents.empty()) {
    // A finished sweep: its stored diagnosis, else its members' rings.
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
    auto sweep = history_->GetSweep(sweep_id);
    if (!sweep.ok()) return sweep.status();
    response.set_sweep_id(sweep_id);
    if (!sweep->sweep.diagnosis.empty()) {
      response.set_json(sweep->sweep.diagnosis);
      response.set_summary(sweep->sweep.error);
      return response;
    }
    auto live = membership_.Select(sweep->sweep.nodes);
    if (!live.ok()) return live.status();
    agents = *live;
  }
  response.set_sweep_id(sweep_id);
  core::Diagnosis d =
      CollectAndDiagnose(sweep_id, agents, *clients_, clock_, timeouts_);
  response.set_summary(d.Summary());
  for (const core::Verdict& v : d.culprits) response.add_verdicts(v.Line());
  for (const std::string& e : d.evidence) response.add_evidence(e);
  response.set_json(d.ToJson());
  return response;
}

}  // namespace fabricpulse::coordinator
