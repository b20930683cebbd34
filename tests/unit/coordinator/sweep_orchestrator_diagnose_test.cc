// SweepOrchestrator::Diagnose over fake agents and fake time: a progressing
// running sweep is running and names nobody, a stalled one names its
// culprit, an aborted one is aborted by request without asking any member,
// a failed one shows its stored verdict, and durations stop at its end.
#include "daemon/coordinator/diagnose_response.h"
#include "daemon/coordinator/history_convert.h"
#include "daemon/coordinator/sweep_orchestrator.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/coordinator/orchestrator_fixture.h"

namespace fabricpulse::testing {
namespace {
namespace FP_UNITY_ID {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using SweepMode = fakes::FakeAgentClient::SweepMode;

double Unix(absl::Time t) {
  return absl::ToDoubleSeconds(t - absl::UnixEpoch());
}

// Step `seq` of ThreeSteps (all_reduce 1 KiB) joined at `at`, in `state`.
v1::FlightRecord Record(uint64_t seq, absl::Time at, const char* state) {
  v1::FlightRecord r;
  r.set_seq(seq);
  r.set_op("all_reduce");
  r.set_bytes(1024);
  r.set_dtype("float");
  r.set_enqueued_unix_seconds(Unix(at));
  r.set_started_unix_seconds(Unix(at));
  r.set_state(state);
  return r;
}

class DiagnoseTest : public OrchestratorTest {
 protected:
  // Ends the sweep `bg` by an abort; its id.
  std::string AbortAndWait(Background& bg) {
    auto aborted = orchestrator_->Abort("");
    EXPECT_TRUE(aborted.ok()) << aborted.status();
    EXPECT_TRUE(bg.done.WaitForNotificationWithTimeout(absl::Seconds(10)));
    return aborted.ok() && !aborted->empty() ? (*aborted)[0] : "";
  }
};

TEST_F(DiagnoseTest, AProgressingRunningSweepIsRunningWithNoCulprit) {
  auto a = AddAgent("node-a", 2);
  a->SetSweepMode(SweepMode::kHang);
  // Both ranks in step 1 for 2 s; a stall only after 1 s x 3 ops + 5 s.
  a->SetRecords(0, {Record(1, clock_.Now() - absl::Seconds(2), "started")});
  a->SetRecords(1, {Record(1, clock_.Now() - absl::Seconds(2), "started")});
  auto bg = Start(ThreeSteps());
  ASSERT_TRUE(WaitForOpenStream(*a));
  auto d = orchestrator_->Diagnose("");
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->state(), "running");
  EXPECT_THAT(d->summary(),
              StartsWith("running: step 1 of 3 (all_reduce 1 KiB), "
                         "no stall: all 2 ranks in all_reduce "
                         "1 KiB for 2.0s (a stall after 8.0s)"));
  EXPECT_EQ(d->culprits_size(), 0);
  EXPECT_EQ(d->verdicts_size(), 0);
  EXPECT_EQ(d->evidence_size(), 2);
  EXPECT_EQ(d->step(), 1u);
  EXPECT_EQ(d->steps_total(), 3u);
  EXPECT_EQ(d->stall_after_seconds(), 8);
  EXPECT_EQ(d->waited_seconds(), 2);
  EXPECT_EQ(d->ended_unix_seconds(), 0);
  EXPECT_TRUE(d->json().empty());
  orchestrator_->AbortAll();
  ASSERT_TRUE(bg->done.WaitForNotificationWithTimeout(absl::Seconds(10)));
}

TEST_F(DiagnoseTest, AStalledRunningSweepNamesTheCulprit) {
  auto a = AddAgent("node-a", 2);
  a->SetSweepMode(SweepMode::kHang);
  // Rank 1 never joined the step rank 0 entered 9 s ago (the bound is 6 s).
  a->SetRecords(0, {Record(1, clock_.Now() - absl::Seconds(9), "started")});
  auto bg = Start(ThreeSteps());
  ASSERT_TRUE(WaitForOpenStream(*a));
  auto d = orchestrator_->Diagnose("");
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->state(), "stalled");
  EXPECT_THAT(d->summary(), HasSubstr("culprit: rank 1 (node node-a)"));
  ASSERT_EQ(d->culprits_size(), 1);
  EXPECT_EQ(d->culprits(0).rank(), 1);
  EXPECT_EQ(d->culprits(0).kind(), "never_joined");
  EXPECT_EQ(d->culprits(0).stuck_for_seconds(), 9);
  EXPECT_EQ(d->stall_after_seconds(), 6);
  EXPECT_THAT(d->json(), HasSubstr("never_joined"));
  orchestrator_->AbortAll();
  ASSERT_TRUE(bg->done.WaitForNotificationWithTimeout(absl::Seconds(10)));
}

TEST_F(DiagnoseTest, AnUnreachableRankOfARunningSweepIsNamedAtOnce) {
  auto a = AddAgent("node-a", 2);
  a->SetSweepMode(SweepMode::kHang);
  a->SetUnreachable(1, "worker did not answer within 1s (stopped?)");
  auto bg = Start(ThreeSteps());
  ASSERT_TRUE(WaitForOpenStream(*a));
  auto d = orchestrator_->Diagnose("");
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->state(), "stalled");
  ASSERT_EQ(d->culprits_size(), 1);
  EXPECT_EQ(d->culprits(0).kind(), "unreachable");
  EXPECT_EQ(d->culprits(0).rank(), 1);
  orchestrator_->AbortAll();
  ASSERT_TRUE(bg->done.WaitForNotificationWithTimeout(absl::Seconds(10)));
}

TEST_F(DiagnoseTest, AnAbortedSweepIsAbortedByRequestAndAsksNoMember) {
  auto a = AddAgent("node-a", 2);
  a->SetSweepMode(SweepMode::kHang);
  // What the rings would say: a "joined, none finished" verdict that grows.
  a->SetRecords(0, {Record(1, clock_.Now(), "started")});
  a->SetRecords(1, {Record(1, clock_.Now(), "started")});
  auto bg = Start(ThreeSteps());
  ASSERT_TRUE(WaitForOpenStream(*a));
  clock_.Advance(absl::Seconds(3));
  const std::string id = AbortAndWait(*bg);
  clock_.Advance(absl::Seconds(130));
  auto d = orchestrator_->Diagnose(id);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->state(), "aborted");
  EXPECT_THAT(
      d->summary(),
      StartsWith("aborted by request at 2027-01-15 08:00:03 UTC, 3.0s "
                 "after it started, in step 1 of 3 (all_reduce 1 KiB), 0 "
                 "steps done"));
  EXPECT_EQ(d->culprits_size(), 0);
  EXPECT_EQ(d->evidence_size(), 0);
  EXPECT_EQ(a->records_calls(), 0);
  EXPECT_EQ(d->ended_unix_seconds(), 1'800'000'003);
}

TEST_F(DiagnoseTest, AFailedSweepShowsItsStoredVerdict) {
  AddAgent("node-a", 1);
  auto b = AddAgent("node-b", 1);
  b->SetSweepMode(SweepMode::kHang);
  b->SetUnreachable(0, "worker did not answer within 1s (stopped?)");
  auto bg = Start(ThreeSteps());
  ASSERT_TRUE(WaitForOpenStream(*b));
  ASSERT_TRUE(AdvanceUntilDone(*bg));
  ASSERT_EQ(bg->events.back().finished().status(), "failed");
  ASSERT_EQ(b->records_calls(), 1);
  clock_.Advance(absl::Hours(1));
  auto d = orchestrator_->Diagnose("");  // the newest failed one
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->sweep_id(), bg->events.back().finished().sweep_id());
  EXPECT_EQ(d->state(), "failed");
  EXPECT_THAT(d->summary(), HasSubstr("culprit: rank 1 (node node-b)"));
  ASSERT_EQ(d->culprits_size(), 1);
  EXPECT_EQ(d->culprits(0).kind(), "unreachable");
  EXPECT_EQ(d->culprits(0).node(), "node-b");
  EXPECT_EQ(d->verdicts_size(), 1);
  EXPECT_EQ(d->evidence_size(), 2);
  EXPECT_EQ(b->records_calls(), 1);  // the stored verdict, no new reading
  EXPECT_FALSE(d->json().empty());
}

// A failed sweep without a stored diagnosis is read from its members'
// rings: its durations stop when it ended, not now.
TEST_F(DiagnoseTest, StuckForStopsWhenTheSweepEnded) {
  auto a = AddAgent("node-a", 2);
  // It ended an hour ago (its members are still alive now).
  const absl::Time ended = clock_.Now() - absl::Hours(1);
  coordinator::SweepRecord record;
  record.id = "s1";
  record.plan = "adhoc";
  record.spec_json = coordinator::SpecToJson(ThreeSteps().spec());
  record.nodes = {"node-a"};
  record.nranks = 2;
  record.started = ended - absl::Seconds(10);
  ASSERT_TRUE(history_->BeginSweep(record).ok());
  ASSERT_TRUE(
      history_->FinishSweep("s1", coordinator::kSweepFailed, "lost", "", ended)
          .ok());
  a->SetRecords(0, {Record(1, ended - absl::Seconds(3), "started")});
  auto d = orchestrator_->Diagnose("s1");
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->state(), "failed");
  ASSERT_EQ(d->culprits_size(), 1);
  EXPECT_EQ(d->culprits(0).rank(), 1);
  EXPECT_EQ(d->culprits(0).stuck_for_seconds(), 3);
  EXPECT_THAT(d->summary(), HasSubstr("others waiting for 3.0s"));
}

// The stored document (core::Diagnosis::ToJson) reads back as it was.
TEST(WrongDataTest, EachCorruptingRankIsNamedWithItsSteps) {
  coordinator::SweepWithSteps sweep;
  for (int i = 0; i < 4; ++i) {
    coordinator::StepRecord step;
    step.index = i;
    step.op = "all_reduce";
    step.bytes = 1024ull << i;
    step.in_place = i % 2 == 1;
    if (i >= 1) step.wrong_by_rank[2] = 100;
    if (i == 3) step.wrong_by_rank[0] = 7;
    sweep.steps.push_back(step);
  }
  v1::DiagnoseResponse r;
  coordinator::AddWrongData(sweep, r);
  ASSERT_EQ(r.wrong_data_size(), 2);
  EXPECT_EQ(r.wrong_data(0).rank(), 0);
  EXPECT_EQ(r.wrong_data(0).wrong(), 7);
  EXPECT_EQ(r.wrong_data(0).steps(), 1);
  EXPECT_EQ(r.wrong_data(0).first_step(), "all_reduce 8 KiB in-place");
  EXPECT_EQ(r.wrong_data(1).rank(), 2);
  EXPECT_EQ(r.wrong_data(1).wrong(), 300);
  EXPECT_EQ(r.wrong_data(1).steps(), 3);
  EXPECT_EQ(r.wrong_data(1).first_step(), "all_reduce 2 KiB in-place");
  // A clean sweep names nobody.
  v1::DiagnoseResponse clean;
  coordinator::SweepWithSteps none;
  none.steps.resize(3);
  coordinator::AddWrongData(none, clean);
  EXPECT_EQ(clean.wrong_data_size(), 0);
}

TEST(StoredDiagnosisTest, RoundTripsAndRefusesOtherDocuments) {
  core::Diagnosis d;
  core::Verdict v;
  v.kind = core::VerdictKind::kFinishedNotNext;
  v.rank = 3;
  v.node = "node \"b\"";
  v.gpu = 1;
  v.seq = 42;
  v.op = "all_reduce";
  v.bytes = 1ull << 40;
  v.stuck_for = absl::Seconds(31.25);
  v.explanation = "finished #41\nnever joined #42";
  d.culprits.push_back(v);
  d.evidence.push_back("rank 3 (node b): reachable; no records");
  auto parsed = coordinator::ParseStoredDiagnosis(d.ToJson());
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  ASSERT_EQ(parsed->culprits.size(), 1u);
  const core::Verdict& p = parsed->culprits[0];
  EXPECT_EQ(p.kind, v.kind);
  EXPECT_EQ(p.rank, 3);
  EXPECT_EQ(p.node, v.node);
  EXPECT_EQ(p.gpu, 1);
  EXPECT_EQ(p.seq, 42u);
  EXPECT_EQ(p.bytes, v.bytes);
  EXPECT_EQ(p.stuck_for, v.stuck_for);
  EXPECT_EQ(p.explanation, v.explanation);
  EXPECT_EQ(parsed->evidence, d.evidence);
  EXPECT_EQ(parsed->Summary(), d.Summary());

  EXPECT_EQ(coordinator::ParseStoredDiagnosis("not json").status().code(),
            absl::StatusCode::kInvalidArgument);
  auto bad_kind = coordinator::ParseStoredDiagnosis(
      R"({"culprits":[{"kind":"bogus","rank":2}]})");
  EXPECT_EQ(bad_kind.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad_kind.status().message(), HasSubstr("'bogus'"));
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::testing
