// The orchestrator's sweep paths over fake agents and fake time: success,
// busy members, silence, a lost stream, an agent that ignores the abort, an
// abort by request, a member that does not answer Describe.
#include "daemon/coordinator/sweep_orchestrator.h"

#include "daemon/core/status_reason.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/coordinator/metrics_test_util.h"
#include "tests/unit/coordinator/orchestrator_fixture.h"

namespace fabricpulse::testing {
namespace {
namespace FP_UNITY_ID {

using ::fabricpulse::testing::Serialize;
using ::testing::HasSubstr;
using ::testing::Not;
using SweepMode = fakes::FakeAgentClient::SweepMode;

int CountEvents(const std::vector<v1::SweepEvent>& events,
                v1::SweepEvent::EventCase kind) {
  int n = 0;
  for (const v1::SweepEvent& e : events) n += e.event_case() == kind;
  return n;
}

TEST_F(OrchestratorTest, RunsASweepOnEveryAgentAndRecordsIt) {
  auto a = AddAgent("node-a", 2);
  auto b = AddAgent("node-b", 2);
  std::vector<v1::SweepEvent> events;
  absl::Status status =
      orchestrator_->Execute(ThreeSteps(), "cli", [&](const v1::SweepEvent& e) {
        events.push_back(e);
        return true;
      });
  ASSERT_TRUE(status.ok()) << status;

  ASSERT_EQ(events.size(), 6u);  // started, comm_ready, 3 results, finished
  EXPECT_EQ(events.front().started().nranks(), 4);
  EXPECT_EQ(CountEvents(events, v1::SweepEvent::kCommReady), 1);
  EXPECT_EQ(CountEvents(events, v1::SweepEvent::kResult), 3);
  EXPECT_EQ(events.back().finished().status(), "succeeded");
  EXPECT_EQ(events[2].result().step().bytes(), 1024u);
  EXPECT_EQ(events[4].result().step().bytes(), 4096u);

  // Ranks in node order, each agent's workers in local order; the plan's
  // epoch, lease and rendezvous address go with the request.
  ASSERT_EQ(a->sweeps().size(), 1u);
  ASSERT_EQ(b->sweeps().size(), 1u);
  const v1::AgentSweepRequest ra = a->sweeps()[0];
  const v1::AgentSweepRequest rb = b->sweeps()[0];
  EXPECT_EQ(ra.ranks(0).rank(), 0);
  EXPECT_EQ(ra.ranks(1).rank(), 1);
  EXPECT_EQ(rb.ranks(0).rank(), 2);
  EXPECT_EQ(rb.ranks(1).rank(), 3);
  EXPECT_EQ(ra.comm_id(), rb.comm_id());
  EXPECT_EQ(ra.membership_epoch(), orchestrator_->membership().epoch());
  EXPECT_EQ(ra.lease_seconds(), 5);
  EXPECT_EQ(ra.coordinator(), "coordinator:1");
  EXPECT_EQ(a->abort_calls(), 0);
  EXPECT_EQ(a->records_calls(), 0);

  auto stored = history_->GetSweep(events.back().finished().sweep_id());
  ASSERT_TRUE(stored.ok()) << stored.status();
  EXPECT_EQ(stored->sweep.status, coordinator::kSweepSucceeded);
  EXPECT_EQ(stored->steps.size(), 3u);
  EXPECT_EQ(orchestrator_->sweeps_started(), 1u);

  // The rank map, numbered as the agents were asked, in the started event
  // and in the history; every step has the ranks' mean time.
  const v1::SweepStarted& started = events.front().started();
  ASSERT_EQ(started.ranks_size(), 4);
  ASSERT_EQ(stored->sweep.ranks.size(), 4u);
  for (int r = 0; r < 4; ++r) {
    EXPECT_EQ(started.ranks(r).rank(), r);
    EXPECT_EQ(started.ranks(r).node(), r < 2 ? "node-a" : "node-b");
    EXPECT_EQ(started.ranks(r).local_index(), r % 2);
    EXPECT_EQ(stored->sweep.ranks[r].node, started.ranks(r).node());
    EXPECT_EQ(stored->sweep.ranks[r].gpu, started.ranks(r).gpu());
  }
  EXPECT_TRUE(events[2].result().has_mean_rank_time_seconds());
  EXPECT_EQ(stored->steps[0].mean_rank_time_seconds,
            events[2].result().mean_rank_time_seconds());
}

TEST_F(OrchestratorTest, ReusesTheCommunicatorUntilASweepFails) {
  AddAgent("node-a", 1);
  auto b = AddAgent("node-b", 1);
  auto noop = [](const v1::SweepEvent&) { return true; };
  absl::Status first = orchestrator_->Execute(ThreeSteps(), "cli", noop);
  ASSERT_TRUE(first.ok()) << first;
  absl::Status second = orchestrator_->Execute(ThreeSteps(), "cli", noop);
  ASSERT_TRUE(second.ok()) << second;
  b->SetSweepMode(SweepMode::kFail, absl::InternalError("boom"));
  EXPECT_FALSE(orchestrator_->Execute(ThreeSteps(), "cli", noop).ok());
  b->SetSweepMode(SweepMode::kComplete);
  absl::Status fourth = orchestrator_->Execute(ThreeSteps(), "cli", noop);
  ASSERT_TRUE(fourth.ok()) << fourth;
  const auto sweeps = b->sweeps();
  ASSERT_EQ(sweeps.size(), 4u);
  EXPECT_EQ(sweeps[0].comm_id(), sweeps[1].comm_id());
  EXPECT_EQ(sweeps[1].comm_id(), sweeps[2].comm_id());
  EXPECT_NE(sweeps[2].comm_id(), sweeps[3].comm_id());  // retired
}

TEST_F(OrchestratorTest, RefusesASecondSweepOnBusyMembersAndAbortsOnRequest) {
  auto a = AddAgent("node-a", 1);
  a->SetSweepMode(SweepMode::kHang);
  auto first = Start(ThreeSteps());
  ASSERT_TRUE(WaitForOpenStream(*a));

  absl::Status second = orchestrator_->Execute(
      ThreeSteps(), "cli", [](const v1::SweepEvent&) { return true; });
  EXPECT_EQ(second.code(), absl::StatusCode::kResourceExhausted) << second;
  EXPECT_EQ(a->sweeps().size(), 1u);  // the refused one reached no agent

  auto aborted = orchestrator_->Abort("");
  ASSERT_TRUE(aborted.ok()) << aborted.status();
  ASSERT_EQ(aborted->size(), 1u);
  ASSERT_TRUE(first->done.WaitForNotificationWithTimeout(absl::Seconds(10)));
  EXPECT_EQ(first->status.code(), absl::StatusCode::kAborted) << first->status;
  EXPECT_EQ(first->events.back().finished().status(), "aborted");
  EXPECT_EQ(a->abort_calls(), 1);
  // The agent is told the abort was requested: not a fault.
  EXPECT_THAT(a->abort_causes(),
              ::testing::ElementsAre(common::AbortCause::kRequest));
  EXPECT_EQ(a->records_calls(), 0);  // an abort is not diagnosed
  EXPECT_EQ(orchestrator_->Abort("").status().code(),
            absl::StatusCode::kNotFound);
  auto stored = history_->GetSweep((*aborted)[0]);
  ASSERT_TRUE(stored.ok());
  EXPECT_EQ(stored->sweep.status, coordinator::kSweepAborted);
}

TEST_F(OrchestratorTest, GivesUpOnASilentSweepAfterTheBudgetedSilence) {
  AddAgent("node-a", 1);
  auto b = AddAgent("node-b", 1);
  b->SetSweepMode(SweepMode::kHang);
  auto bg = Start(ThreeSteps());
  ASSERT_TRUE(WaitForOpenStream(*b));
  // 1 s per op x (0 warm-ups + 1 iteration + 2) + 3 leases of 5 s = 18 s.
  ASSERT_TRUE(AdvanceUntilDone(*bg));
  EXPECT_EQ(bg->status.code(), absl::StatusCode::kDeadlineExceeded)
      << bg->status;
  EXPECT_THAT(bg->status.message(), HasSubstr("no rank reported for 18s"));
  EXPECT_EQ(b->records_calls(), 1);  // diagnosed before the abort
  EXPECT_EQ(b->abort_calls(), 1);
  EXPECT_THAT(b->abort_causes(),
              ::testing::ElementsAre(common::AbortCause::kFailure));
  EXPECT_EQ(b->open_streams(), 0);
  EXPECT_EQ(bg->events.back().finished().status(), "failed");
}

TEST_F(OrchestratorTest, NamesTheNodeWhoseStreamFailed) {
  auto a = AddAgent("node-a", 1);
  auto b = AddAgent("node-b", 1);
  b->SetSweepMode(SweepMode::kFail,
                  absl::UnavailableError("worker 0 died (signal 9)"));
  a->SetSweepMode(SweepMode::kHang);
  std::vector<v1::SweepEvent> events;
  absl::Status status =
      orchestrator_->Execute(ThreeSteps(), "cli", [&](const v1::SweepEvent& e) {
        events.push_back(e);
        return true;
      });
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(status.message(),
              HasSubstr("node node-b: worker 0 died (signal 9)"));
  EXPECT_EQ(a->records_calls(), 1);
  EXPECT_EQ(b->records_calls(), 1);
  EXPECT_EQ(a->abort_calls(), 1);  // the hanging member is told to abort
  EXPECT_THAT(a->abort_causes(),
              ::testing::ElementsAre(common::AbortCause::kFailure));
  EXPECT_EQ(a->open_streams(), 0);
  EXPECT_EQ(CountEvents(events, v1::SweepEvent::kResult), 0);
  // The members are free again.
  a->SetSweepMode(SweepMode::kComplete);
  b->SetSweepMode(SweepMode::kComplete);
  EXPECT_TRUE(orchestrator_
                  ->Execute(ThreeSteps(), "cli",
                            [](const v1::SweepEvent&) { return true; })
                  .ok());
}

TEST_F(OrchestratorTest, NamesTheRanksOfAnAgentThatCannotBeDiagnosed) {
  auto a = AddAgent("node-a", 1);
  auto b = AddAgent("node-b", 2);
  b->FailFlightRecords(absl::UnavailableError("connection refused"));
  a->SetSweepMode(SweepMode::kFail,
                  absl::DeadlineExceededError("op timed out"));
  b->SetSweepMode(SweepMode::kHang);
  std::vector<v1::SweepEvent> events;
  absl::Status status =
      orchestrator_->Execute(ThreeSteps(), "cli", [&](const v1::SweepEvent& e) {
        events.push_back(e);
        return true;
      });
  EXPECT_EQ(status.code(), absl::StatusCode::kDeadlineExceeded);
  // node-b's two ranks are unreachable culprits, named with why.
  EXPECT_THAT(status.message(), HasSubstr("node node-b"));
  auto stored = history_->GetSweep(events.back().finished().sweep_id());
  ASSERT_TRUE(stored.ok());
  EXPECT_THAT(stored->sweep.diagnosis, HasSubstr("connection refused"));
}

// Both agents lost their coordinator; node-b's lease ran out first, and its
// abort reset node-a's connections. The sweep keeps the root cause.
TEST_F(OrchestratorTest, KeepsAnAgentsLeaseEndOverItsPeersResetRanks) {
  auto a = AddAgent("node-a", 1);
  auto b = AddAgent("node-b", 1);
  a->SetSweepMode(SweepMode::kFail,
                  absl::UnavailableError("rank 0 on node node-a: worker "
                                         "unreachable or died: reset"));
  b->SetSweepMode(SweepMode::kHang);
  // As the agent ends it (CoordinatorContact::CheckLease): typed.
  b->SetAbortEnd(core::WithReason(
      absl::UnavailableError(
          "sweep lease expired: no answer from the coordinator for 5.0 s"),
      core::StatusReason::kSweepLeaseEnded));
  absl::Status status = orchestrator_->Execute(
      ThreeSteps(), "cli", [](const v1::SweepEvent&) { return true; });
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(status.message(), HasSubstr("node node-b: sweep lease expired"));
}

TEST_F(OrchestratorTest, KeepsTheFirstErrorWhenNoLeaseEnded) {
  auto a = AddAgent("node-a", 1);
  auto b = AddAgent("node-b", 1);
  a->SetSweepMode(SweepMode::kFail, absl::InternalError("nccl error"));
  b->SetSweepMode(SweepMode::kHang);
  b->SetAbortEnd(absl::UnavailableError("worker unreachable or died"));
  absl::Status status = orchestrator_->Execute(
      ThreeSteps(), "cli", [](const v1::SweepEvent&) { return true; });
  EXPECT_EQ(status.code(), absl::StatusCode::kInternal);
  EXPECT_THAT(status.message(), HasSubstr("node node-a: nccl error"));
}

TEST_F(OrchestratorTest, CutsTheStreamOfAnAgentThatIgnoresTheAbort) {
  auto a = AddAgent("node-a", 1);
  auto b = AddAgent("node-b", 1);
  a->SetSweepMode(SweepMode::kHang);
  a->AnswerAbort(false);  // dead or partitioned
  b->SetSweepMode(SweepMode::kFail, absl::InternalError("nccl error"));
  auto bg = Start(ThreeSteps());
  // The abort fan-out waits the budget's agent call (3 s) for node-a.
  ASSERT_TRUE(AdvanceUntilDone(*bg));
  EXPECT_EQ(bg->status.code(), absl::StatusCode::kInternal) << bg->status;
  EXPECT_EQ(a->abort_calls(), 1);
  EXPECT_EQ(a->open_streams(), 0);  // cut, not left to the drain bound
}

TEST_F(OrchestratorTest, RefusesWhenAMemberDoesNotDescribeItself) {
  auto a = AddAgent("node-a", 1);
  auto b = AddAgent("node-b", 1);
  b->FailDescribe(absl::DeadlineExceededError("no answer within 3s"));
  absl::Status status = orchestrator_->Execute(
      ThreeSteps(), "cli", [](const v1::SweepEvent&) { return true; });
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(status.message(), HasSubstr("node node-b (fake:node-b) does "
                                          "not answer: no answer within 3s"));
  EXPECT_TRUE(a->sweeps().empty());
  EXPECT_EQ(orchestrator_->sweeps_started(), 0u);
  auto listed = history_->ListSweeps(10);
  ASSERT_TRUE(listed.ok());
  EXPECT_TRUE(listed->empty());  // nothing recorded, nothing reserved
  b->FailDescribe(absl::OkStatus());
  EXPECT_TRUE(orchestrator_
                  ->Execute(ThreeSteps(), "cli",
                            [](const v1::SweepEvent&) { return true; })
                  .ok());
}

TEST_F(OrchestratorTest, RefusesALostNodeOnceItsLeaseRanOut) {
  AddAgent("node-a", 1);
  clock_.Advance(absl::Seconds(6));  // no heartbeat for longer than 5 s
  v1::SweepRequest request = ThreeSteps();
  request.add_nodes("node-a");
  absl::Status status = orchestrator_->Execute(
      request, "cli", [](const v1::SweepEvent&) { return true; });
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable) << status;
}

TEST_F(OrchestratorTest, ALargerFleetHeartbeatsLessOftenAndKeepsItsLease) {
  for (int i = 0; i < 250; ++i) AddAgent(absl::StrCat("node-", i), 1);
  coordinator::Membership& membership = orchestrator_->membership();
  EXPECT_EQ(membership.HeartbeatInterval(), absl::Seconds(2.5));
  EXPECT_EQ(membership.Lease(), absl::Seconds(12.5));
  clock_.Advance(absl::Seconds(12));
  EXPECT_EQ(membership.CountByState().lost, 0);
  clock_.Advance(absl::Seconds(1));
  EXPECT_EQ(membership.CountByState().lost, 250);
}

TEST_F(OrchestratorTest, DiagnosesARunningSweepFromItsMembers) {
  auto a = AddAgent("node-a", 2);
  a->SetSweepMode(SweepMode::kHang);
  auto bg = Start(ThreeSteps());
  ASSERT_TRUE(WaitForOpenStream(*a));
  auto diagnosis = orchestrator_->Diagnose("");
  ASSERT_TRUE(diagnosis.ok()) << diagnosis.status();
  EXPECT_FALSE(diagnosis->sweep_id().empty());
  EXPECT_EQ(a->records_calls(), 1);
  orchestrator_->AbortAll();
  ASSERT_TRUE(bg->done.WaitForNotificationWithTimeout(absl::Seconds(10)));
  EXPECT_EQ(bg->status.code(), absl::StatusCode::kAborted);
}

// Ad-hoc sweeps stay out of alerts: a clearly slower ad-hoc sweep, judged
// against five earlier ones, shows its regression to the client but sets no
// baseline or regression series; an aborted one neither.
TEST_F(OrchestratorTest, AdhocRegressionsReachTheClientButNoMetric) {
  auto a = AddAgent("node-a", 2);
  auto noop = [](const v1::SweepEvent&) { return true; };
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(orchestrator_->Execute(ThreeSteps(), "cli", noop).ok());
  }
  a->SetRankSeconds(50e-3);  // 50x the 1 ms of the earlier sweeps
  std::vector<v1::SweepEvent> events;
  ASSERT_TRUE(orchestrator_
                  ->Execute(ThreeSteps(), "cli",
                            [&](const v1::SweepEvent& e) {
                              events.push_back(e);
                              return true;
                            })
                  .ok());
  int regressed = 0;
  for (const v1::SweepEvent& e : events) {
    if (!e.has_result()) continue;
    EXPECT_EQ(e.result().baseline_sweeps(), 5);
    EXPECT_DOUBLE_EQ(e.result().baseline_time_seconds(), 1e-3);
    regressed += e.result().regression();
  }
  EXPECT_EQ(regressed, 3);
  // Aborted mid-sweep, too.
  a->SetSweepMode(SweepMode::kHang);
  auto bg = Start(ThreeSteps());
  ASSERT_TRUE(WaitForOpenStream(*a));
  orchestrator_->AbortAll();
  ASSERT_TRUE(bg->done.WaitForNotificationWithTimeout(absl::Seconds(10)));
  const std::string text = Serialize(registry_);
  EXPECT_THAT(text, HasSubstr("fabricpulse_busbw_bytes_per_second{"));
  EXPECT_THAT(text, Not(HasSubstr("fabricpulse_regression{")));
  EXPECT_THAT(text, Not(HasSubstr("fabricpulse_regressions_total{")));
  EXPECT_THAT(text,
              Not(HasSubstr("fabricpulse_baseline_busbw_bytes_per_second{")));
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::testing
