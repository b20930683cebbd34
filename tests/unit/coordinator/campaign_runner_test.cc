// The coordinator's campaigns (issue 28) over a fake fleet: agents with
// labels, busy GPUs, reservations and lost states; a fake launch path in
// which groups with a slow node measure low; an in-memory history; fake
// time for retries and windows.
#include "daemon/coordinator/campaign_runner.h"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "daemon/coordinator/published_verdict.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/fakes/fake_clock.h"

namespace fabricpulse::coordinator {
namespace {
namespace FP_UNITY_ID {

using ::testing::HasSubstr;

constexpr double kFast = 10e9;

// Agents as Membership::List gives them, and group sweeps as the
// orchestrator would run them: kFast, or a tenth of it with a slow node.
class FakeFleet {
 public:
  explicit FakeFleet(int nodes) {
    for (int i = 0; i < nodes; ++i) {
      v1::AgentInfo a;
      a.set_node_name(absl::StrCat("node-", i));
      a.set_state("alive");
      (*a.mutable_labels())["rack"] = absl::StrCat("r", i % 2);
      v1::WorkerInfo* w = a.add_workers();
      w->set_gpu(0);
      agents_[a.node_name()] = a;
    }
  }
  std::vector<v1::AgentInfo> List(const std::vector<std::string>& nodes = {}) {
    absl::MutexLock lock(&mu_);
    if (nodes.empty()) ++whole_fleet_lists_;
    std::vector<v1::AgentInfo> out;
    for (const auto& [name, a] : agents_) {
      if (nodes.empty() ||
          std::find(nodes.begin(), nodes.end(), name) != nodes.end()) {
        out.push_back(a);
      }
    }
    return out;
  }
  absl::Status Run(const v1::SweepRequest& request, const std::string& trigger,
                   const SweepSink& sink) {
    std::vector<std::string> nodes(request.nodes().begin(),
                                   request.nodes().end());
    Gate* gate = nullptr;
    {
      absl::MutexLock lock(&mu_);
      triggers_.insert(trigger);
      groups_.push_back(nodes);
      gate = gate_;
      // Under the lock: group sweeps start concurrently.
      if (gate != nullptr && !gate->started.HasBeenNotified()) {
        gate->started.Notify();
      }
    }
    if (gate != nullptr) {
      gate->release.WaitForNotification();
      return absl::AbortedError("the coordinator is shutting down");
    }
    bool slow = false;
    {
      absl::MutexLock lock(&mu_);
      for (const std::string& n : nodes) slow = slow || slow_.count(n) > 0;
    }
    v1::SweepEvent started;
    started.mutable_started()->set_sweep_id(absl::StrCat("s-", next_++));
    sink(started);
    v1::SweepEvent result;
    v1::StepResult* r = result.mutable_result();
    r->mutable_step()->set_op("all_reduce");
    r->mutable_step()->set_bytes(1 << 20);
    // With jitter, the groups' busbw spread by +-5 % around kFast.
    const double jitter =
        jitter_ ? 1 + 0.025 * (static_cast<int>(next_ % 5) - 2) : 1;
    r->set_busbw_bytes_per_second(slow ? kFast / 10 : kFast * jitter);
    sink(result);
    return absl::OkStatus();
  }
  void SetJitter(bool on) {
    absl::MutexLock lock(&mu_);
    jitter_ = on;
  }
  void SetSlow(const std::string& node) {
    absl::MutexLock lock(&mu_);
    slow_.insert(node);
  }
  void SetGpuBusy(const std::string& node, bool busy) {
    absl::MutexLock lock(&mu_);
    agents_[node].mutable_workers(0)->set_gpu_other_processes(busy ? 1 : 0);
    agents_[node].mutable_workers(0)->set_gpu_busy(busy);
  }
  void SetLost(const std::string& node) {
    absl::MutexLock lock(&mu_);
    agents_[node].set_state("lost");
  }
  std::vector<std::vector<std::string>> groups() {
    absl::MutexLock lock(&mu_);
    return groups_;
  }
  std::set<std::string> triggers() {
    absl::MutexLock lock(&mu_);
    return triggers_;
  }
  // Listings of the whole fleet so far (List without nodes).
  int whole_fleet_lists() {
    absl::MutexLock lock(&mu_);
    return whole_fleet_lists_;
  }
  // While set, every sweep blocks until `release`, then ends aborted.
  struct Gate {
    absl::Notification started;
    absl::Notification release;
  };
  void SetGate(Gate* gate) {
    absl::MutexLock lock(&mu_);
    gate_ = gate;
  }

 private:
  absl::Mutex mu_;
  std::map<std::string, v1::AgentInfo> agents_;
  std::set<std::string> slow_;
  bool jitter_ = false;
  std::vector<std::vector<std::string>> groups_;
  std::set<std::string> triggers_;
  Gate* gate_ = nullptr;
  int next_ = 0;
  int whole_fleet_lists_ = 0;
};

core::CoordinatorConfig Config() {
  core::CoordinatorConfig config;
  core::PlanConfig plan;
  plan.name = "camp";
  plan.campaign.emplace();
  plan.campaign->grouping.group_by = "rack";
  plan.campaign->settings.window = absl::Minutes(30);
  plan.campaign->settings.busy_retry = absl::Minutes(1);
  config.plans["camp"] = plan;
  core::PlanConfig single;
  single.name = "single";
  config.plans["single"] = single;
  return config;
}

class CampaignRunnerTest : public ::testing::Test {
 protected:
  CampaignRunnerTest() : config_(Config()) {
    auto store = HistoryStore::Open(":memory:");
    EXPECT_TRUE(store.ok()) << store.status();
    history_ = *std::move(store);
  }

  std::unique_ptr<CampaignRunner> NewRunner() {
    auto runner = CampaignRunner::Create(
        &config_,
        [this](const v1::SweepRequest& r, const std::string& t,
               const SweepSink& s) { return fleet_.Run(r, t, s); },
        [this](const std::vector<std::string>& nodes) {
          return fleet_.List(nodes);
        },
        history_.get(), &clock_);
    EXPECT_TRUE(runner.ok()) << runner.status();
    return *std::move(runner);
  }

  // node -> verdict of plan camp.
  std::map<std::string, std::string> Verdicts(CampaignRunner& runner) {
    std::map<std::string, std::string> out;
    auto nodes = runner.Nodes("camp");
    EXPECT_TRUE(nodes.ok()) << nodes.status();
    for (const PlanNodeStatus& p : *nodes) {
      out[p.status.node] = std::string(core::VerdictName(p.status.verdict));
    }
    return out;
  }
  std::map<std::string, std::string> AllPass() {
    std::map<std::string, std::string> out;
    for (const v1::AgentInfo& a : fleet_.List()) out[a.node_name()] = "pass";
    return out;
  }
  CampaignRecord Newest(CampaignRunner& runner) {
    auto newest = runner.NewestCampaigns("camp");
    EXPECT_TRUE(newest.ok() && newest->size() == 1);
    return newest.ok() && !newest->empty() ? newest->front() : CampaignRecord{};
  }
  // Runs a campaign of camp to its end, advancing fake time whenever the
  // campaign waits for it.
  CampaignRecord RunToEnd(CampaignRunner& runner) {
    auto id = runner.Start("camp", "cli");
    EXPECT_TRUE(id.ok()) << id.status();
    while (!runner.WaitIdle(absl::Milliseconds(20))) {
      clock_.AdvanceToNextDeadline();
    }
    CampaignRecord r = Newest(runner);
    EXPECT_EQ(r.id, *id);
    return r;
  }

  core::CoordinatorConfig config_;
  FakeFleet fleet_{10};  // 5 pairs: each judged against 4 peers
  fakes::FakeClock clock_;
  std::unique_ptr<HistoryStore> history_;
};

TEST_F(CampaignRunnerTest, AHealthyFleetIsCoveredInPairsAndNobodyNamed) {
  auto runner = NewRunner();
  const CampaignRecord r = RunToEnd(*runner);
  EXPECT_EQ(r.status, kCampaignFinished);
  EXPECT_EQ(r.fleet, 10);
  EXPECT_EQ(r.measured, 10);
  EXPECT_EQ(r.pass, 10);
  EXPECT_EQ(r.second_passes, 0);
  EXPECT_EQ(r.grouping, "pairs,group_by=rack");
  EXPECT_EQ(Verdicts(*runner), AllPass());
  // Pairs across racks (even and odd nodes), every node once.
  std::set<std::string> seen;
  for (const auto& g : fleet_.groups()) {
    ASSERT_EQ(g.size(), 2u);
    EXPECT_NE(g[0].back() % 2, g[1].back() % 2) << g[0] << " " << g[1];
    seen.insert(g.begin(), g.end());
  }
  EXPECT_EQ(seen.size(), 10u);
  EXPECT_EQ(fleet_.triggers(),
            std::set<std::string>{absl::StrCat("campaign:", r.id)});
  auto stored = history_->NodeResults("camp");
  ASSERT_TRUE(stored.ok());
  EXPECT_EQ(stored->size(), 5u);
}

// A group sweep looks up its own members, not the fleet (at 4,096 agents
// the coordinator copied every agent's description once per group sweep):
// the whole fleet is listed a fixed number of times per campaign, however
// many groups it runs.
TEST_F(CampaignRunnerTest, GroupSweepsLookUpTheirMembersOnly) {
  auto runner = NewRunner();
  const int before = fleet_.whole_fleet_lists();
  const CampaignRecord r = RunToEnd(*runner);
  EXPECT_EQ(r.measured, 10);
  const int groups = static_cast<int>(fleet_.groups().size());
  EXPECT_EQ(groups, 5);
  // Start's fleet and the end's verdict metrics (no metrics here): 1.
  EXPECT_LE(fleet_.whole_fleet_lists() - before, 2) << groups << " groups";
}

// The plan's measured noise (issue 28) comes with its newest campaign: none
// from an even fleet (no spread to measure), and once the groups' busbw
// varies, the robust spread of busbw / reference.
TEST_F(CampaignRunnerTest, TheNewestCampaignCarriesThePlansNoise) {
  auto runner = NewRunner();
  EXPECT_FALSE(RunToEnd(*runner).plan_noise.has_value());
  fleet_.SetJitter(true);
  const CampaignRecord r = RunToEnd(*runner);
  ASSERT_TRUE(r.plan_noise.has_value());
  EXPECT_GT(*r.plan_noise, 0);
  EXPECT_LT(*r.plan_noise, 0.1);
  EXPECT_EQ(Verdicts(*runner), AllPass());
}

// The next campaign of a plan starts right after the last one ended (its
// driver joined off the lock) and pairs the nodes differently.
TEST_F(CampaignRunnerTest, CampaignsInARowRotatePartners) {
  auto runner = NewRunner();
  RunToEnd(*runner);
  const auto first = fleet_.groups();
  const CampaignRecord r = RunToEnd(*runner);
  EXPECT_EQ(r.measured, 10);
  const auto all = fleet_.groups();
  ASSERT_EQ(all.size(), 10u);
  const std::set<std::vector<std::string>> before(first.begin(), first.end());
  int repeated = 0;
  for (size_t i = 5; i < all.size(); ++i) repeated += before.count(all[i]);
  EXPECT_LT(repeated, 5);
  auto listed = history_->ListCampaigns("camp", 10);
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ(listed->size(), 2u);
}

TEST_F(CampaignRunnerTest, ASlowNodeIsConfirmedByTheSecondPassAndNobodyElse) {
  fleet_.SetSlow("node-5");
  auto runner = NewRunner();
  const CampaignRecord r = RunToEnd(*runner);
  auto want = AllPass();
  want["node-5"] = "fail";
  EXPECT_EQ(Verdicts(*runner), want);
  EXPECT_EQ(r.fail, 1);
  EXPECT_EQ(r.pass, 9);
  EXPECT_EQ(r.second_passes, 2);  // node-5 and its first partner
  auto nodes = runner->Nodes("camp");
  ASSERT_TRUE(nodes.ok());
  for (const PlanNodeStatus& p : *nodes) {
    if (p.status.node != "node-5") continue;
    ASSERT_EQ(p.status.evidence.size(), 2u);
    EXPECT_EQ(p.status.evidence.back().detail, "below critical");
    EXPECT_TRUE(p.status.evidence.back().blamed);
  }
}

// Each heartbeat hands the node its verdict (issue 30): untested before
// any campaign, then the campaign's, with an expiry one validity after the
// test; nothing for a node no campaign plan selects.
TEST_F(CampaignRunnerTest, HeartbeatsCarryTheNodesVerdictWithItsExpiry) {
  fleet_.SetSlow("node-5");
  auto runner = NewRunner();
  const core::AgentLabels rack1 = {{"rack", "r1"}};
  std::optional<v1::NodeVerdictNotice> before =
      runner->VerdictFor("node-5", rack1);
  ASSERT_TRUE(before.has_value());
  EXPECT_EQ(before->verdict(), "untested");
  EXPECT_EQ(before->plan(), "camp");
  EXPECT_EQ(before->tested_unix_seconds(), 0);
  EXPECT_EQ(before->expires_unix_seconds(), 0);
  RunToEnd(*runner);
  std::optional<v1::NodeVerdictNotice> slow =
      runner->VerdictFor("node-5", rack1);
  ASSERT_TRUE(slow.has_value());
  EXPECT_EQ(slow->verdict(), "fail");
  EXPECT_GT(slow->tested_unix_seconds(), 0);
  EXPECT_EQ(slow->expires_unix_seconds(),
            slow->tested_unix_seconds() + 24 * 3600);
  EXPECT_EQ(runner->VerdictFor("node-0", {{"rack", "r0"}})->verdict(), "pass");
  // Past the validity the verdict is untested again, with no expiry.
  clock_.Advance(absl::Hours(25));
  EXPECT_EQ(runner->VerdictFor("node-5", rack1)->verdict(), "untested");
  EXPECT_EQ(runner->VerdictFor("node-5", rack1)->expires_unix_seconds(), 0);
}

TEST_F(CampaignRunnerTest, NoVerdictForANodeNoCampaignPlanSelects) {
  config_.plans["camp"].campaign->select = {{"pool", "train"}};
  auto runner = NewRunner();
  EXPECT_EQ(runner->VerdictFor("node-0", {{"pool", "infer"}}), std::nullopt);
  EXPECT_EQ(runner->VerdictFor("node-0", {{"pool", "train"}})->verdict(),
            "untested");
}

// Of several plans' verdicts the worst is published: a confirmed fail is
// never hidden by another plan's pass; an unconfirmed suspect outranks a
// pass but not a confirmed finding.
TEST(PublishedVerdictTest, TheWorstVerdictWinsThenTheNewest) {
  auto notice = [](const char* verdict, double tested, const char* plan) {
    v1::NodeVerdictNotice n;
    n.set_verdict(verdict);
    n.set_tested_unix_seconds(tested);
    n.set_plan(plan);
    return n;
  };
  std::optional<v1::NodeVerdictNotice> worst;
  KeepWorst(worst, notice("untested", 0, "a"));
  KeepWorst(worst, notice("pass", 5, "b"));
  EXPECT_EQ(worst->verdict(), "pass");
  KeepWorst(worst, notice("suspect", 4, "c"));
  EXPECT_EQ(worst->verdict(), "suspect");
  KeepWorst(worst, notice("fail", 1, "d"));
  KeepWorst(worst, notice("degraded", 9, "e"));
  KeepWorst(worst, notice("pass", 10, "f"));
  EXPECT_EQ(worst->verdict(), "fail");
  KeepWorst(worst, notice("fail", 2, "g"));  // the newer of two fails
  EXPECT_EQ(worst->plan(), "g");
}

TEST(PublishedVerdictTest, AMeasuredVerdictExpiresOneValidityAfterItsTest) {
  core::NodeStatus status;
  status.verdict = core::NodeVerdict::kDegraded;
  status.last_tested = absl::FromUnixSeconds(1000);
  status.since = absl::FromUnixSeconds(900);
  v1::NodeVerdictNotice n = ToNotice("p", status, absl::Hours(1));
  EXPECT_EQ(n.verdict(), "degraded");
  EXPECT_EQ(n.tested_unix_seconds(), 1000);
  EXPECT_EQ(n.since_unix_seconds(), 900);
  EXPECT_EQ(n.expires_unix_seconds(), 4600);
  status.verdict = core::NodeVerdict::kUntested;
  EXPECT_EQ(ToNotice("p", status, absl::Hours(1)).expires_unix_seconds(), 0);
  core::NodeStatus never;  // never tested
  EXPECT_EQ(ToNotice("p", never, absl::Hours(1)).tested_unix_seconds(), 0);
}

TEST_F(CampaignRunnerTest, VerdictsSurviveARestartFromTheHistory) {
  fleet_.SetSlow("node-5");
  {
    auto runner = NewRunner();
    RunToEnd(*runner);
  }
  auto again = NewRunner();
  auto want = AllPass();
  want["node-5"] = "fail";
  EXPECT_EQ(Verdicts(*again), want);
  EXPECT_EQ(Newest(*again).fail, 1);
}

TEST_F(CampaignRunnerTest, ABusyGpuIsSkippedRetriedAndCoveredWhenFree) {
  fleet_.SetGpuBusy("node-3", true);
  auto runner = NewRunner();
  ASSERT_TRUE(runner->Start("camp", "cli").ok());
  // The others are measured first; node-3 waits for its retry.
  const absl::Time deadline = absl::Now() + absl::Seconds(30);
  while (Newest(*runner).measured < 9 && absl::Now() < deadline) {
    runner->WaitIdle(absl::Milliseconds(5));
  }
  EXPECT_EQ(Newest(*runner).measured, 9);
  EXPECT_TRUE(runner->Running("camp"));
  for (const auto& g : fleet_.groups()) {
    EXPECT_EQ(std::count(g.begin(), g.end(), "node-3"), 0);
  }
  fleet_.SetGpuBusy("node-3", false);
  while (!runner->WaitIdle(absl::Milliseconds(20))) {
    clock_.AdvanceToNextDeadline();
  }
  const CampaignRecord r = Newest(*runner);
  EXPECT_EQ(r.measured, 10);
  EXPECT_EQ(Verdicts(*runner), AllPass());
}

TEST_F(CampaignRunnerTest, ANodeBusyForTheWholeWindowEndsUntestedAlone) {
  fleet_.SetGpuBusy("node-3", true);
  auto runner = NewRunner();
  const CampaignRecord r = RunToEnd(*runner);
  auto want = AllPass();
  want["node-3"] = "untested";
  EXPECT_EQ(Verdicts(*runner), want);
  EXPECT_EQ(r.untested, 1);
  EXPECT_EQ(r.measured, 9);
  EXPECT_EQ(r.status, kCampaignFinished);
  EXPECT_GE(clock_.Now() - r.started, absl::Minutes(30));
}

TEST_F(CampaignRunnerTest, ALostAgentFailsItselfNotItsPartner) {
  auto runner = NewRunner();
  // Lost after the campaign took its fleet: its group fails.
  auto id = runner->Start("camp", "cli");
  ASSERT_TRUE(id.ok());
  fleet_.SetLost("node-2");
  while (!runner->WaitIdle(absl::Milliseconds(20))) {
    clock_.AdvanceToNextDeadline();
  }
  const auto verdicts = Verdicts(*runner);
  for (const auto& [node, verdict] : verdicts) {
    EXPECT_EQ(verdict, node == "node-2" ? "fail" : "pass") << node;
  }
  auto nodes = runner->Nodes("camp");
  ASSERT_TRUE(nodes.ok());
  for (const PlanNodeStatus& p : *nodes) {
    if (p.status.node == "node-2") {
      EXPECT_THAT(p.status.evidence.back().detail,
                  HasSubstr("agent not alive: node-2"));
    }
  }
}

TEST_F(CampaignRunnerTest, StartRefusesBadPlansAndASecondCampaign) {
  auto runner = NewRunner();
  EXPECT_EQ(runner->Start("nope", "cli").status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(runner->Start("single", "cli").status().message(),
              HasSubstr("is not a campaign plan"));
  EXPECT_THAT(runner->Start("camp", "cli", "triples").status().message(),
              HasSubstr("grouping: 'triples' is not a grouping"));
  FakeFleet::Gate gate;
  fleet_.SetGate(&gate);
  ASSERT_TRUE(runner->Start("camp", "cli").ok());
  gate.started.WaitForNotification();
  EXPECT_EQ(runner->Start("camp", "cli").status().code(),
            absl::StatusCode::kAlreadyExists);
  // A stop ends it interrupted; the aborted sweeps are no evidence.
  runner->RequestStop();
  gate.release.Notify();
  runner->Stop();
  const CampaignRecord r = Newest(*runner);
  EXPECT_EQ(r.status, kCampaignInterrupted);
  auto stored = history_->NodeResults("camp");
  ASSERT_TRUE(stored.ok());
  EXPECT_TRUE(stored->empty());
  EXPECT_EQ(runner->Start("camp", "cli").status().code(),
            absl::StatusCode::kUnavailable);
}

TEST_F(CampaignRunnerTest, NoLiveAgentIsAClearError) {
  for (const v1::AgentInfo& a : fleet_.List()) fleet_.SetLost(a.node_name());
  auto runner = NewRunner();
  absl::Status status = runner->Start("camp", "cli").status();
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(status.message(), HasSubstr("no live agent matches"));
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::coordinator
