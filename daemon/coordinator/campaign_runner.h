// Runs the campaign plans of the config (issue 28): a plan with a
// `campaign:` block (core/campaign_config.h) covers the fleet in group
// sweeps, concurrently, on idle nodes only, and ends with a verdict per
// node. Each campaign takes the live agents of the plan (its nodes, else
// every agent; then its select labels), splits them with
// core::PlanGroups (the rotation: how many campaigns of the plan the
// history holds), and drives a core::Campaign on this clock: each due group
// is a sweep of the plan on the group's nodes, launched like the CLI's
// (SweepLauncher), with the trigger "campaign:<campaign id>". A group with a
// member whose GPU is busy (the members' last heartbeats), or that the
// orchestrator refuses as busy, is retried after busy_retry; a member that
// is not alive fails its group.
//
// Each judged group result is appended to the history
// (HistoryStore::SaveNodeResult) and recorded in the plan's
// core::NodeVerdictBook, which a restart rebuilds from the history, so
// verdicts survive restarts. A campaign's summary is saved when it starts
// and when it ends (finished, or interrupted by a shutdown).
//
// Bounds: at most one campaign per plan at a time (Start refuses another);
// each campaign runs one driver thread plus one thread per running group
// sweep (at most its max_concurrent_groups, <= core::kMaxConcurrentGroups);
// a book holds the nodes it judged (nodes no longer registered are
// forgotten when a campaign starts), each with at most
// core::kMaxNodeEvidence results.
//
// Thread-safety: thread-safe. Everything it points to outlives it.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "daemon/coordinator/auto_isolator.h"
#include "daemon/coordinator/node_verdict_metrics.h"
#include "daemon/coordinator/store/history_store.h"
#include "daemon/core/agent_labels.h"
#include "daemon/core/campaign.h"
#include "daemon/core/clock.h"
#include "daemon/core/coordinator_config.h"
#include "fabricpulse/v1/types.pb.h"

namespace fabricpulse::coordinator {

// The trigger of a campaign's group sweeps: "campaign:<campaign id>".
inline constexpr char kCampaignTriggerPrefix[] = "campaign:";

// The registered agents (Membership::List): alive and lost; only those of
// `nodes` when it is not empty (a group sweep looks up its members alone,
// so that its cost does not grow with the fleet).
using AgentLister = std::function<std::vector<v1::AgentInfo>(
    const std::vector<std::string>& nodes)>;

// One node's verdict for one campaign plan.
struct PlanNodeStatus {
  std::string plan;
  core::NodeStatus status;
};

class CampaignRunner {
 public:
  // Rebuilds each campaign plan's verdict book from the history. Errors:
  // the history's; INVALID_ARGUMENT a plan's campaign settings (the config
  // parser checked them).
  static absl::StatusOr<std::unique_ptr<CampaignRunner>> Create(
      const core::CoordinatorConfig* config, SweepLauncher launch,
      AgentLister agents, HistoryStore* history, core::Clock* clock,
      NodeVerdictMetrics* metrics = nullptr);
  ~CampaignRunner();  // Stop()

  // Sets the campaign plans' series (node_verdict_metrics.h) from their
  // verdicts at now and their newest campaigns; also done as each campaign
  // ends. O(nodes): the coordinator calls it every 30 s, since a verdict
  // turns untested as time passes.
  void PublishMetrics();

  // Starts a campaign of `plan` in the background; `grouping` ("" = the
  // plan's) overrides its grouping (core::ParseGrouping's text). Returns
  // the campaign's id. Errors: INVALID_ARGUMENT no such plan, a plan
  // without a campaign block, or a bad grouping; FAILED_PRECONDITION no
  // live agent matches the plan; ALREADY_EXISTS a campaign of the plan
  // runs; UNAVAILABLE stopping; the history's errors.
  absl::StatusOr<std::string> Start(const std::string& plan,
                                    const std::string& trigger,
                                    const std::string& grouping = "");

  // Whether `plan` has a campaign block.
  bool IsCampaignPlan(const std::string& plan) const;
  // OK for "" (every plan) and a campaign plan; INVALID_ARGUMENT "plan:
  // 'x' is not a campaign plan" otherwise.
  absl::Status RequireCampaignPlan(const std::string& plan) const;

  // Every campaign plan's verdicts (only `plan`'s when not empty) at now:
  // for the nodes its book judged and the live agents it would select, by
  // plan then node. Errors: INVALID_ARGUMENT `plan` is not a campaign plan.
  absl::StatusOr<std::vector<PlanNodeStatus>> Nodes(const std::string& plan);

  // The verdict to hand the agent of `node` (labels `labels`) with its
  // heartbeat (published_verdict.h): the worst over the campaign plans that
  // judged the node or would select it; nullopt when none does. O(plans x
  // log nodes): called on every heartbeat.
  std::optional<v1::NodeVerdictNotice> VerdictFor(
      const std::string& node, const core::AgentLabels& labels);

  // The newest campaign of every campaign plan (only `plan`'s when not
  // empty): a running one as it stands now, else the history's newest.
  // Errors: the history's.
  absl::StatusOr<std::vector<CampaignRecord>> NewestCampaigns(
      const std::string& plan);

  // Whether a campaign of `plan` runs now.
  bool Running(const std::string& plan);
  // Waits up to `timeout` until no campaign runs; whether none does.
  bool WaitIdle(absl::Duration timeout);

  // No new campaign or group sweep starts; running ones end after their
  // current group sweeps (which the orchestrator's AbortAll ends).
  void RequestStop();
  void Stop();  // RequestStop, then joins every campaign

 private:
  struct Active;
  struct PlanState {
    const core::PlanConfig* plan = nullptr;
    std::unique_ptr<core::NodeVerdictBook> book;
    std::shared_ptr<Active> active;  // null when none runs
    std::thread driver;              // the last campaign's; joined by the next
    uint64_t rotation = 0;
  };

  CampaignRunner(const core::CoordinatorConfig* config, SweepLauncher launch,
                 AgentLister agents, HistoryStore* history, core::Clock* clock,
                 NodeVerdictMetrics* metrics)
      : config_(config),
        launch_(std::move(launch)),
        agents_(std::move(agents)),
        history_(history),
        clock_(clock),
        metrics_(metrics) {}
  // The live agents of `agents` that `plan` selects.
  std::vector<core::CampaignNode> Fleet(
      const core::PlanConfig& plan, const std::vector<v1::AgentInfo>& agents);
  void Drive(std::shared_ptr<Active> active);
  void RunGroup(std::shared_ptr<Active> active, core::CampaignGroup group);
  void SaveSummary(Active& active, const std::string& status)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The record as it stands, counts at now (`status` set).
  void Summarize(Active& active, const std::string& status)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const core::CoordinatorConfig* const config_;
  const SweepLauncher launch_;
  const AgentLister agents_;
  HistoryStore* const history_;
  core::Clock* const clock_;
  NodeVerdictMetrics* const metrics_;
  absl::Mutex mu_;
  std::map<std::string, PlanState> plans_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  int running_ ABSL_GUARDED_BY(mu_) = 0;  // campaigns whose driver runs
  uint64_t next_id_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace fabricpulse::coordinator
