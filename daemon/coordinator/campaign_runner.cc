#include "daemon/coordinator/campaign_runner.h"

#include <algorithm>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "daemon/coordinator/busy_gpus.h"
#include "daemon/coordinator/group_outcome.h"
#include "daemon/coordinator/published_verdict.h"
#include "daemon/core/log.h"
#include "daemon/core/name_rules.h"
#include "daemon/core/status_macros.h"

namespace fabricpulse::coordinator {

// One running campaign. Guarded by the runner's mu_, but for the fields set
// before its driver starts (read-only after).
struct CampaignRunner::Active {
  std::string id;
  std::string plan;
  std::string trigger;
  std::string judge_op;
  std::vector<std::string> fleet;  // first-pass nodes, by name
  std::optional<core::Campaign> campaign;
  CampaignRecord record;
  struct Done {
    int id = 0;
    bool held_back = false;
    std::vector<std::string> busy;  // empty: every member
    core::GroupMeasurement measurement;
  };
  std::vector<Done> done;
  int in_flight = 0;
  // Running group sweeps' threads by group id; each is joined as its
  // result is taken, so threads are bounded by the running groups.
  std::map<int, std::thread> groups;
};

namespace {

std::string JudgeOp(const core::PlanConfig& plan) {
  if (!plan.campaign->judge_op.empty()) return plan.campaign->judge_op;
  return plan.spec.ops.empty() ? "all_reduce" : plan.spec.ops.front();
}

std::string GroupingLabel(const core::GroupingSpec& g) {
  return g.group_by.empty()
             ? core::GroupingText(g)
             : absl::StrCat(core::GroupingText(g), ",group_by=", g.group_by);
}

}  // namespace

absl::StatusOr<std::unique_ptr<CampaignRunner>> CampaignRunner::Create(
    const core::CoordinatorConfig* config, SweepLauncher launch,
    AgentLister agents, HistoryStore* history, core::Clock* clock,
    NodeVerdictMetrics* metrics) {
  std::unique_ptr<CampaignRunner> runner(new CampaignRunner(
      config, std::move(launch), std::move(agents), history, clock, metrics));
  absl::MutexLock lock(&runner->mu_);
  for (const auto& [name, plan] : config->plans) {
    if (!plan.campaign) continue;
    absl::StatusOr<core::NodeVerdictBook> book =
        core::NodeVerdictBook::Create(plan.campaign->rules);
    if (!book.ok()) return book.status();
    PlanState state;
    state.plan = &plan;
    state.book = std::make_unique<core::NodeVerdictBook>(*std::move(book));
    absl::StatusOr<std::vector<core::GroupResult>> stored =
        history->NodeResults(name);
    if (!stored.ok()) return stored.status();
    for (const core::GroupResult& result : *stored) {
      // A stored result the book refuses (malformed) changes nothing.
      (void)state.book->Record(result);
    }
    absl::StatusOr<std::vector<CampaignRecord>> past =
        history->ListCampaigns(name, kMaxStoredCampaigns);
    if (!past.ok()) return past.status();
    state.rotation = past->size();
    runner->plans_.emplace(name, std::move(state));
    if (metrics != nullptr) {
      metrics->AddPlan(name);
      if (!past->empty()) {
        const CampaignRecord& r = past->front();
        metrics->Campaign(name, r.fleet, r.measured, r.untested,
                          /*ended=*/false, r.status);
      }
    }
  }
  return runner;
}

CampaignRunner::~CampaignRunner() { Stop(); }

bool CampaignRunner::IsCampaignPlan(const std::string& plan) const {
  auto it = config_->plans.find(plan);
  return it != config_->plans.end() && it->second.campaign.has_value();
}

std::vector<core::CampaignNode> CampaignRunner::Fleet(
    const core::PlanConfig& plan, const std::vector<v1::AgentInfo>& agents) {
  const std::set<std::string> named(plan.nodes.begin(), plan.nodes.end());
  std::vector<core::CampaignNode> fleet;
  for (const v1::AgentInfo& agent : agents) {
    if (agent.state() != "alive") continue;
    if (!named.empty() && named.count(agent.node_name()) == 0) continue;
    core::AgentLabels labels(agent.labels().begin(), agent.labels().end());
    if (!core::LabelsMatch(labels, plan.campaign->select)) continue;
    fleet.push_back({agent.node_name(), std::move(labels)});
  }
  return fleet;
}

absl::StatusOr<std::string> CampaignRunner::Start(const std::string& plan,
                                                  const std::string& trigger,
                                                  const std::string& grouping) {
  if (!IsCampaignPlan(plan)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "plan: ", core::QuotePrefix(plan),
        " is not a campaign plan (a plan of the config with a campaign: "
        "block)"));
  }
  const core::PlanConfig& config = config_->plans.at(plan);
  core::GroupingSpec spec = config.campaign->grouping;
  if (!grouping.empty()) {
    absl::StatusOr<core::GroupingSpec> parsed = core::ParseGrouping(grouping);
    if (!parsed.ok()) return parsed.status();
    spec.kind = parsed->kind;
    spec.k = parsed->k;
  }
  const std::vector<v1::AgentInfo> agents = agents_({});
  const std::vector<core::CampaignNode> fleet = Fleet(config, agents);
  if (fleet.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "plan ", plan, ": no live agent matches its nodes and select labels"));
  }
  std::set<std::string> registered;
  for (const v1::AgentInfo& agent : agents) {
    registered.insert(agent.node_name());
  }
  absl::ReleasableMutexLock lock(&mu_);
  if (stopping_) {
    return absl::UnavailableError("the coordinator is shutting down");
  }
  PlanState& state = plans_.at(plan);
  if (state.active != nullptr) {
    return absl::AlreadyExistsError(absl::StrCat(
        "plan ", plan, ": campaign ", state.active->id, " is still running"));
  }
  for (const std::string& node : state.book->Nodes()) {
    if (registered.count(node) == 0) state.book->Forget(node);
  }
  const absl::Time now = clock_->Now();
  auto active = std::make_shared<Active>();
  active->id = absl::StrCat("c", absl::ToUnixNanos(now), "-", next_id_++);
  active->plan = plan;
  active->trigger = trigger;
  active->judge_op = JudgeOp(config);
  for (const core::CampaignNode& node : fleet) {
    active->fleet.push_back(node.name);
  }
  core::CampaignOptions options;
  options.settings = config.campaign->settings;
  options.group_by = spec.group_by;
  options.expected_busbw = config.campaign->expected_busbw_gbps * 1e9;
  options.thresholds = config.campaign->thresholds;
  HistoryStore* history = history_;
  options.on_record = [history, plan](const core::GroupResult& result) {
    absl::Status saved = history->SaveNodeResult(plan, result);
    if (!saved.ok()) {
      FP_LOG_ERROR(absl::StrCat("campaign of ", plan,
                                ": result not kept: ", saved.message()));
    }
  };
  absl::StatusOr<core::Campaign> campaign =
      core::Campaign::Create(core::PlanGroups(spec, fleet, state.rotation),
                             fleet, options, now, state.book.get());
  if (!campaign.ok()) return campaign.status();
  active->campaign.emplace(*std::move(campaign));
  CampaignRecord& r = active->record;
  r.id = active->id;
  r.plan = plan;
  r.trigger = trigger;
  r.grouping = GroupingLabel(spec);
  r.started = now;
  r.fleet = static_cast<int>(fleet.size());
  SaveSummary(*active, kCampaignRunning);
  ++state.rotation;
  state.active = active;
  // The last campaign's driver has ended but may still publish the metrics
  // (which takes the lock): it is joined once the lock is released.
  std::thread previous = std::move(state.driver);
  ++running_;
  FP_LOG_INFO(absl::StrCat("campaign ", active->id, " of plan ", plan, " (",
                           r.grouping, ") started over ", fleet.size(),
                           " node(s)"));
  state.driver = std::thread([this, active] { Drive(active); });
  const std::string id = active->id;
  lock.Release();
  if (previous.joinable()) previous.join();
  return id;
}

void CampaignRunner::SaveSummary(Active& active, const std::string& status) {
  Summarize(active, status);
  absl::Status saved = history_->SaveCampaign(active.record);
  if (!saved.ok()) {
    FP_LOG_ERROR(absl::StrCat("campaign ", active.id,
                              ": summary not kept: ", saved.message()));
  }
}

void CampaignRunner::Summarize(Active& active, const std::string& status) {
  CampaignRecord& r = active.record;
  const absl::Time now = clock_->Now();
  const core::CampaignSummary summary = active.campaign->Summary(now);
  r.status = status;
  r.measured = static_cast<int>(summary.progress.measured);
  r.second_passes = summary.second_passes;
  r.untested = r.pass = r.degraded = r.fail = r.suspect = 0;
  for (const core::NodeStatus& s :
       plans_.at(active.plan).book->Statuses(active.fleet, now)) {
    switch (s.verdict) {
      case core::NodeVerdict::kPass:
        ++r.pass;
        break;
      case core::NodeVerdict::kDegraded:
        ++r.degraded;
        break;
      case core::NodeVerdict::kFail:
        ++r.fail;
        break;
      case core::NodeVerdict::kSuspect:
        ++r.suspect;
        break;
      case core::NodeVerdict::kUntested:
        ++r.untested;
        break;
    }
  }
  if (status != kCampaignRunning) r.finished = now;
}

absl::StatusOr<std::vector<CampaignRecord>> CampaignRunner::NewestCampaigns(
    const std::string& plan) {
  std::vector<CampaignRecord> out;
  std::vector<std::string> stored;
  std::map<std::string, double> noise;  // plan: its book's noise, when known
  {
    absl::MutexLock lock(&mu_);
    for (auto& [name, state] : plans_) {
      if (!plan.empty() && name != plan) continue;
      if (const double n = state.book->NoiseSpread(); n > 0) noise[name] = n;
      if (state.active != nullptr) {
        Summarize(*state.active, kCampaignRunning);
        out.push_back(state.active->record);
      } else {
        stored.push_back(name);
      }
    }
  }
  for (const std::string& name : stored) {
    absl::StatusOr<std::vector<CampaignRecord>> last =
        history_->ListCampaigns(name, 1);
    if (!last.ok()) return last.status();
    out.insert(out.end(), last->begin(), last->end());
  }
  for (CampaignRecord& r : out) {
    if (auto it = noise.find(r.plan); it != noise.end()) {
      r.plan_noise = it->second;
    }
  }
  return out;
}

void CampaignRunner::Drive(std::shared_ptr<Active> active) {
  std::map<int, std::thread> groups;
  {
    absl::MutexLock lock(&mu_);
    core::Campaign& campaign = *active->campaign;
    while (true) {
      const absl::Time now = clock_->Now();
      std::vector<Active::Done> done;
      done.swap(active->done);
      // Group sweeps aborted by the shutdown are no evidence.
      for (Active::Done& d : done) {
        // It has pushed its result and only returns: joined at once.
        if (auto t = active->groups.find(d.id); t != active->groups.end()) {
          t->second.join();
          active->groups.erase(t);
        }
        if (stopping_) continue;
        if (d.held_back) {
          campaign.Busy(d.id, d.busy, now);
          continue;
        }
        absl::Status recorded = campaign.Measured(d.id, d.measurement, now);
        if (!recorded.ok()) {
          FP_LOG_ERROR(
              absl::StrCat("campaign ", active->id, ": ", recorded.message()));
        }
      }
      if (active->in_flight == 0 && (stopping_ || campaign.Finished(now))) {
        break;
      }
      if (!stopping_) {
        for (core::CampaignGroup& group : campaign.Due(now)) {
          ++active->in_flight;
          const int id = group.id;
          active->groups.emplace(
              id,
              std::thread([this, active, group = std::move(group)]() mutable {
                RunGroup(active, std::move(group));
              }));
        }
      }
      const absl::Time wake =
          stopping_ ? absl::InfiniteFuture() : campaign.NextWake(now);
      Active* a = active.get();
      auto woken = [this, a]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return !a->done.empty() || (stopping_ && a->in_flight == 0);
      };
      clock_->AwaitWithDeadline(&mu_, absl::Condition(&woken), wake);
    }
    groups.swap(active->groups);
  }
  for (auto& [id, t] : groups) t.join();
  absl::ReleasableMutexLock lock(&mu_);
  SaveSummary(*active, stopping_ ? kCampaignInterrupted : kCampaignFinished);
  const CampaignRecord& r = active->record;
  FP_LOG_INFO(absl::StrCat("campaign ", r.id, " of plan ", r.plan, " ",
                           r.status, ": ", r.measured, " of ", r.fleet,
                           " node(s) measured; pass ", r.pass, ", degraded ",
                           r.degraded, ", fail ", r.fail, ", suspect ",
                           r.suspect, ", untested ", r.untested));
  plans_.at(active->plan).active.reset();
  --running_;
  if (metrics_ != nullptr) {
    metrics_->Campaign(r.plan, r.fleet, r.measured, r.untested,
                       /*ended=*/true, r.status);
  }
  lock.Release();
  PublishMetrics();
}

void CampaignRunner::PublishMetrics() {
  if (metrics_ == nullptr) return;
  absl::StatusOr<std::vector<PlanNodeStatus>> nodes = Nodes("");
  if (!nodes.ok()) return;
  std::map<std::string, std::vector<core::NodeStatus>> by_plan;
  for (const auto& [name, plan] : config_->plans) {
    if (plan.campaign) by_plan[name];
  }
  for (PlanNodeStatus& p : *nodes) {
    by_plan[p.plan].push_back(std::move(p.status));
  }
  for (const auto& [plan, statuses] : by_plan) {
    metrics_->Publish(plan, statuses);
  }
}

void CampaignRunner::RunGroup(std::shared_ptr<Active> active,
                              core::CampaignGroup group) {
  Active::Done done;
  done.id = group.id;
  std::map<std::string, v1::AgentInfo> by_node;
  for (v1::AgentInfo& agent : agents_(group.nodes)) {
    by_node[agent.node_name()] = std::move(agent);
  }
  std::vector<std::string> gone;
  std::vector<std::string> reserved;  // busy with another sweep
  std::vector<v1::AgentInfo> members;
  for (const std::string& node : group.nodes) {
    auto it = by_node.find(node);
    if (it == by_node.end() || it->second.state() != "alive") {
      gone.push_back(node);
    } else {
      if (!it->second.reserved_sweep().empty()) reserved.push_back(node);
      members.push_back(it->second);
    }
  }
  if (!gone.empty()) {
    // The group's result: failed. Its other members are cleared by their
    // second passes with a partner that passed.
    done.measurement.ok = false;
    done.measurement.busbw = 0;
    done.measurement.error =
        absl::StrCat("agent not alive: ", absl::StrJoin(gone, ", "));
    done.measurement.at = clock_->Now();
  } else if (!reserved.empty()) {
    done.held_back = true;
    done.busy = std::move(reserved);
  } else if (std::vector<BusyGpu> busy = FindBusyGpus(members); !busy.empty()) {
    done.held_back = true;
    for (const BusyGpu& gpu : busy) done.busy.push_back(gpu.node);
  } else {
    GroupOutcome outcome(active->judge_op, members);
    v1::SweepRequest request;
    request.set_plan(active->plan);
    for (const std::string& node : group.nodes) request.add_nodes(node);
    const absl::Status status =
        launch_(request, absl::StrCat(kCampaignTriggerPrefix, active->id),
                [&outcome](const v1::SweepEvent& event) {
                  return outcome.Take(event);
                });
    if (GroupOutcome::HeldBack(status)) {
      // Which member became busy since the check is not known: every
      // member is retried.
      done.held_back = true;
    } else {
      done.measurement = outcome.Measurement(status, clock_->Now());
    }
  }
  absl::MutexLock lock(&mu_);
  active->done.push_back(std::move(done));
  --active->in_flight;
}

absl::Status CampaignRunner::RequireCampaignPlan(
    const std::string& plan) const {
  if (plan.empty() || IsCampaignPlan(plan)) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "plan: ", core::QuotePrefix(plan), " is not a campaign plan"));
}

absl::StatusOr<std::vector<PlanNodeStatus>> CampaignRunner::Nodes(
    const std::string& plan) {
  FP_RETURN_IF_ERROR(RequireCampaignPlan(plan));
  std::map<std::string, std::vector<std::string>> live;
  const std::vector<v1::AgentInfo> agents = agents_({});
  for (const auto& [name, config] : config_->plans) {
    if (!config.campaign || (!plan.empty() && name != plan)) continue;
    for (const core::CampaignNode& node : Fleet(config, agents)) {
      live[name].push_back(node.name);
    }
  }
  std::vector<PlanNodeStatus> out;
  absl::MutexLock lock(&mu_);
  const absl::Time now = clock_->Now();
  for (const auto& [name, state] : plans_) {
    if (!plan.empty() && name != plan) continue;
    std::vector<std::string> nodes = state.book->Nodes();
    nodes.insert(nodes.end(), live[name].begin(), live[name].end());
    for (core::NodeStatus& s : state.book->Statuses(nodes, now)) {
      out.push_back({name, std::move(s)});
    }
  }
  return out;
}

std::optional<v1::NodeVerdictNotice> CampaignRunner::VerdictFor(
    const std::string& node, const core::AgentLabels& labels) {
  std::optional<v1::NodeVerdictNotice> worst;
  absl::MutexLock lock(&mu_);
  const absl::Time now = clock_->Now();
  for (const auto& [name, state] : plans_) {
    const core::PlanConfig& plan = *state.plan;
    const bool named = plan.nodes.empty() ||
                       std::find(plan.nodes.begin(), plan.nodes.end(), node) !=
                           plan.nodes.end();
    const bool selected =
        named && core::LabelsMatch(labels, plan.campaign->select);
    core::NodeStatus status = state.book->Status(node, now);
    if (!selected && status.last_tested == absl::InfinitePast()) continue;
    KeepWorst(worst, ToNotice(name, status, plan.campaign->rules.validity));
  }
  return worst;
}

bool CampaignRunner::Running(const std::string& plan) {
  absl::MutexLock lock(&mu_);
  auto it = plans_.find(plan);
  return it != plans_.end() && it->second.active != nullptr;
}

bool CampaignRunner::WaitIdle(absl::Duration timeout) {
  absl::MutexLock lock(&mu_);
  auto idle = [this]()
                  ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return running_ == 0; };
  return mu_.AwaitWithTimeout(absl::Condition(&idle), timeout);
}

void CampaignRunner::RequestStop() {
  absl::MutexLock lock(&mu_);
  stopping_ = true;
}

void CampaignRunner::Stop() {
  RequestStop();
  std::vector<std::thread> drivers;
  {
    absl::MutexLock lock(&mu_);
    for (auto& [name, state] : plans_) {
      if (state.driver.joinable()) drivers.push_back(std::move(state.driver));
    }
  }
  for (std::thread& t : drivers) t.join();
}

}  // namespace fabricpulse::coordinator
