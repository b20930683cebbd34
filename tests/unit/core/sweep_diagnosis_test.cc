#include "daemon/core/sweep_diagnosis.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/time/time.h"
#include "daemon/core/timeout_budget.h"
#include "gtest/gtest.h"

namespace fabricpulse::core {
namespace {
namespace FP_UNITY_ID {

constexpr uint64_t kGiB = 1ull << 30;
const absl::Time kNow = absl::FromUnixSeconds(1700000000);
// 30 s per op, 5 warm-up + 20 timed + 2 (check) iterations per step.
const absl::Duration kOpTimeout = absl::Seconds(30);
constexpr int kIterations = 27;

absl::Time Ago(double seconds) { return kNow - absl::Seconds(seconds); }

// Step `seq` (1-based) of a 1 GiB all_reduce sweep, entered `ago` seconds
// before kNow; completed 10 s later when kCompleted.
FlightRecord Rec(uint64_t seq, OpState state, double ago) {
  FlightRecord r;
  r.seq = seq;
  r.op = "all_reduce";
  r.bytes = kGiB;
  r.dtype = "float";
  r.state = state;
  r.enqueued = Ago(ago);
  if (state != OpState::kEnqueued) r.started = r.enqueued;
  if (state == OpState::kCompleted)
    r.completed = r.enqueued + absl::Seconds(10);
  return r;
}

// Steps 1..last, 10 s each; all completed except `last`, in `state`,
// entered `last_ago` seconds before kNow.
std::vector<FlightRecord> Trace(uint64_t last, OpState state, double last_ago) {
  std::vector<FlightRecord> records;
  for (uint64_t seq = 1; seq <= last; ++seq) {
    records.push_back(Rec(seq, seq == last ? state : OpState::kCompleted,
                          last_ago + 10.0 * static_cast<double>(last - seq)));
  }
  return records;
}

RankReport Rank(int rank, std::vector<FlightRecord> records) {
  RankReport r;
  r.rank = rank;
  r.node = rank < 2 ? "node-a" : "node-b";
  r.gpu = rank % 2;
  r.records = std::move(records);
  return r;
}

// A 60-step sweep of 1 GiB all_reduce with the daemons' bounds.
SweepFacts Facts(SweepState state, int steps_done) {
  SweepFacts facts;
  facts.state = state;
  facts.started = Ago(1000);
  for (int i = 0; i < 60; ++i) {
    Step step;
    step.index = i;
    step.op = Op::kAllReduce;
    step.bytes = kGiB;
    step.count = kGiB / 4;
    facts.steps.push_back(step);
  }
  facts.steps_done = steps_done;
  facts.peer_wait_bound = kTimeouts.PeerWait(kOpTimeout);
  facts.step_bound = kTimeouts.StepStall(kOpTimeout, kIterations);
  return facts;
}

// The report of issue 12: four healthy ranks 12 s into a 1 GiB step.
std::vector<RankReport> AllInStep51For12s() {
  std::vector<RankReport> ranks;
  for (int r = 0; r < 4; ++r) {
    ranks.push_back(Rank(r, Trace(51, OpState::kStarted, 12)));
  }
  return ranks;
}

TEST(SweepDiagnosisTest, AProgressingSweepIsRunningWithNoCulprit) {
  const std::vector<RankReport> ranks = AllInStep51For12s();
  // The bare rank analysis suspects every rank: the false verdict.
  ASSERT_FALSE(Diagnose(ranks, kNow).culprits.empty());

  SweepDiagnosis d =
      DiagnoseSweep(Facts(SweepState::kRunning, 50), ranks, kNow);
  EXPECT_EQ(d.state, SweepState::kRunning);
  EXPECT_TRUE(d.ranks.culprits.empty());
  EXPECT_EQ(d.ranks.evidence.size(), 4u);  // what each rank does is kept
  EXPECT_EQ(d.step, 51);
  EXPECT_EQ(d.waited, absl::Seconds(12));
  EXPECT_EQ(d.bound, absl::Seconds(30 * 27 + 5));
  EXPECT_TRUE(absl::StartsWith(
      d.Summary(),
      "running: step 51 of 60 (all_reduce 1 GiB), no stall: all 4 "
      "ranks in all_reduce 1 GiB for 12.0s (a stall after 815.0s)"))
      << d.Summary();
  EXPECT_FALSE(absl::StrContains(d.Summary(), "culprit")) << d.Summary();
}

// Between steps the ranks drift apart by their host work: no stall.
TEST(SweepDiagnosisTest, RanksAFewSecondsApartAreRunning) {
  std::vector<RankReport> ranks;
  ranks.push_back(Rank(0, Trace(52, OpState::kStarted, 1)));
  ranks.push_back(Rank(1, Trace(52, OpState::kStarted, 2)));
  // Ranks 2 and 3 still check step 51's output.
  ranks.push_back(Rank(2, Trace(51, OpState::kStarted, 12)));
  ranks.push_back(Rank(3, Trace(51, OpState::kStarted, 12)));
  SweepDiagnosis d =
      DiagnoseSweep(Facts(SweepState::kRunning, 50), ranks, kNow);
  EXPECT_EQ(d.state, SweepState::kRunning) << d.Summary();
  EXPECT_TRUE(d.ranks.culprits.empty());
  EXPECT_EQ(d.waited, absl::Seconds(2));
  EXPECT_EQ(d.bound, absl::Seconds(35));
  EXPECT_TRUE(absl::StrContains(d.Summary(), "rank 2 has not joined"))
      << d.Summary();
}

TEST(SweepDiagnosisTest, NoRecordsYetIsRunning) {
  std::vector<RankReport> ranks = {Rank(0, {}), Rank(1, {})};
  SweepDiagnosis d = DiagnoseSweep(Facts(SweepState::kRunning, 0), ranks, kNow);
  EXPECT_EQ(d.state, SweepState::kRunning);
  EXPECT_TRUE(absl::StartsWith(d.Summary(), "running: step 1 of 60"))
      << d.Summary();
}

// A rank that never joined the step the others wait in, past the bound:
// the culprit is named as before.
TEST(SweepDiagnosisTest, ARankBehindPastTheBoundIsStalledAndNamed) {
  std::vector<RankReport> ranks;
  for (int r = 0; r < 3; ++r) {
    ranks.push_back(Rank(r, Trace(51, OpState::kStarted, 40)));
  }
  ranks.push_back(Rank(3, Trace(50, OpState::kCompleted, 50)));
  SweepDiagnosis d =
      DiagnoseSweep(Facts(SweepState::kRunning, 50), ranks, kNow);
  EXPECT_EQ(d.state, SweepState::kStalled);
  ASSERT_EQ(d.ranks.culprits.size(), 1u);
  EXPECT_EQ(d.ranks.culprits[0].rank, 3);
  EXPECT_EQ(d.ranks.culprits[0].kind, VerdictKind::kFinishedNotNext);
  EXPECT_EQ(d.ranks.culprits[0].stuck_for, absl::Seconds(40));
  EXPECT_TRUE(absl::StartsWith(
      d.Summary(),
      "stalled in step 51 of 60 (all_reduce 1 GiB): rank 3 has not "
      "joined all_reduce 1 GiB that other ranks joined 40.0s ago, "
      "more than 35.0s; culprit: rank 3 (node node-b, GPU 1)"))
      << d.Summary();
}

// The same picture inside the bound is a rank still busy between steps.
TEST(SweepDiagnosisTest, ARankBehindWithinTheBoundIsRunning) {
  std::vector<RankReport> ranks;
  for (int r = 0; r < 3; ++r) {
    ranks.push_back(Rank(r, Trace(51, OpState::kStarted, 30)));
  }
  ranks.push_back(Rank(3, Trace(50, OpState::kCompleted, 40)));
  SweepDiagnosis d =
      DiagnoseSweep(Facts(SweepState::kRunning, 50), ranks, kNow);
  EXPECT_EQ(d.state, SweepState::kRunning) << d.Summary();
  EXPECT_TRUE(d.ranks.culprits.empty());
}

// A rank that did not finish a step its peers finished long ago.
TEST(SweepDiagnosisTest, ARankThatDidNotFinishPastTheBoundIsStalled) {
  std::vector<RankReport> ranks;
  for (int r = 0; r < 3; ++r) {
    ranks.push_back(Rank(r, Trace(51, OpState::kCompleted, 50)));  // at -40
  }
  ranks.push_back(Rank(3, Trace(51, OpState::kStarted, 50)));
  SweepDiagnosis d =
      DiagnoseSweep(Facts(SweepState::kRunning, 50), ranks, kNow);
  EXPECT_EQ(d.state, SweepState::kStalled) << d.Summary();
  EXPECT_EQ(d.waited, absl::Seconds(40));
  ASSERT_EQ(d.ranks.culprits.size(), 1u);
  EXPECT_EQ(d.ranks.culprits[0].rank, 3);
  EXPECT_EQ(d.ranks.culprits[0].kind, VerdictKind::kJoinedNotFinished);
}

// Every rank in one step longer than all its ops' deadlines: stalled, with
// the low-confidence verdict of before.
TEST(SweepDiagnosisTest, AllRanksInAStepPastItsDeadlinesIsStalled) {
  std::vector<RankReport> ranks;
  for (int r = 0; r < 4; ++r) {
    ranks.push_back(Rank(r, Trace(51, OpState::kStarted, 816)));
  }
  SweepDiagnosis d =
      DiagnoseSweep(Facts(SweepState::kRunning, 50), ranks, kNow);
  EXPECT_EQ(d.state, SweepState::kStalled);
  EXPECT_EQ(d.ranks.culprits.size(), 4u);
  EXPECT_TRUE(d.ranks.culprits[0].low_confidence);
  EXPECT_TRUE(absl::StrContains(d.Summary(), "no single culprit"))
      << d.Summary();
}

// An unreachable rank is a fault at once, whatever the times say.
TEST(SweepDiagnosisTest, AnUnreachableRankIsStalledAtOnce) {
  std::vector<RankReport> ranks = AllInStep51For12s();
  ranks[2].reachable = false;
  ranks[2].unreachable_reason = "worker did not answer within 1s (stopped?)";
  SweepDiagnosis d =
      DiagnoseSweep(Facts(SweepState::kRunning, 50), ranks, kNow);
  EXPECT_EQ(d.state, SweepState::kStalled);
  ASSERT_FALSE(d.ranks.culprits.empty());
  EXPECT_EQ(d.ranks.culprits[0].rank, 2);
  EXPECT_EQ(d.ranks.culprits[0].kind, VerdictKind::kUnreachable);
  EXPECT_TRUE(absl::StrContains(d.Summary(), "rank 2 is unreachable"))
      << d.Summary();
}

TEST(SweepDiagnosisTest, AFailedStepIsStalledAtOnce) {
  std::vector<RankReport> ranks = AllInStep51For12s();
  ranks[1].records.back().state = OpState::kFailed;
  ranks[1].records.back().error = "connection reset";
  SweepDiagnosis d =
      DiagnoseSweep(Facts(SweepState::kRunning, 50), ranks, kNow);
  EXPECT_EQ(d.state, SweepState::kStalled);
  ASSERT_FALSE(d.ranks.culprits.empty());
  EXPECT_EQ(d.ranks.culprits[0].kind, VerdictKind::kFailed);
}

// An abort is no fault: when and where, no culprit, whatever the ranks'
// rings say and however long ago it ended.
TEST(SweepDiagnosisTest, AnAbortedSweepIsAbortedByRequest) {
  SweepFacts facts = Facts(SweepState::kAborted, 5);
  facts.started = Ago(200);
  facts.ended = Ago(133.8);
  facts.error = "sweep aborted";
  SweepDiagnosis d = DiagnoseSweep(facts, AllInStep51For12s(), kNow);
  EXPECT_EQ(d.state, SweepState::kAborted);
  EXPECT_TRUE(d.ranks.culprits.empty());
  EXPECT_TRUE(d.ranks.evidence.empty());
  EXPECT_EQ(d.Summary(),
            "aborted by request at 2023-11-14 22:11:06 UTC, 66.2s after it "
            "started, in step 6 of 60 (all_reduce 1 GiB), 5 steps done");
  EXPECT_FALSE(NeedsRankRecords(SweepState::kAborted));
}

// A yield to a foreign GPU process is no fault either: when, where (the
// recorded error names node and GPU), no culprit.
TEST(SweepDiagnosisTest, APreemptedSweepIsNoFault) {
  SweepFacts facts = Facts(SweepState::kPreempted, 5);
  facts.started = Ago(200);
  facts.ended = Ago(133.8);
  facts.error = "node b GPU 1: a compute process ... appeared";
  SweepDiagnosis d = DiagnoseSweep(facts, AllInStep51For12s(), kNow);
  EXPECT_EQ(d.state, SweepState::kPreempted);
  EXPECT_TRUE(d.ranks.culprits.empty());
  EXPECT_TRUE(d.ranks.evidence.empty());
  EXPECT_EQ(d.Summary(),
            "preempted at 2023-11-14 22:11:06 UTC, 66.2s after it started, "
            "in step 6 of 60 (all_reduce 1 GiB), 5 steps done: node b GPU 1: "
            "a compute process ... appeared; not a fault");
  EXPECT_FALSE(NeedsRankRecords(SweepState::kPreempted));
  EXPECT_EQ(SweepStateName(SweepState::kPreempted), "preempted");
}

TEST(SweepDiagnosisTest, AnAbortAfterTheLastStepSaysSo) {
  SweepFacts facts = Facts(SweepState::kAborted, 60);
  facts.ended = Ago(1);
  EXPECT_TRUE(absl::StrContains(DiagnoseSweep(facts, {}, kNow).Summary(),
                                "after its last step (60 of 60), 60 steps"));
}

// "stuck for" of a finished sweep diagnosed later ends when it ended.
TEST(SweepDiagnosisTest, StuckForEndsWhenTheSweepEnded) {
  SweepFacts facts = Facts(SweepState::kFailed, 50);
  facts.ended = Ago(100);
  std::vector<RankReport> ranks;
  for (int r = 0; r < 3; ++r) {
    ranks.push_back(Rank(r, Trace(51, OpState::kStarted, 103)));
  }
  ranks.push_back(Rank(3, Trace(50, OpState::kCompleted, 113)));
  SweepDiagnosis d = DiagnoseSweep(facts, ranks, kNow);
  EXPECT_EQ(d.state, SweepState::kFailed);
  ASSERT_EQ(d.ranks.culprits.size(), 1u);
  EXPECT_EQ(d.ranks.culprits[0].rank, 3);
  EXPECT_EQ(d.ranks.culprits[0].stuck_for, absl::Seconds(3));
  EXPECT_TRUE(absl::StrContains(d.Summary(), "others waiting for 3.0s"))
      << d.Summary();
  EXPECT_TRUE(absl::StartsWith(d.Summary(),
                               "failed at 2023-11-14 22:11:40 UTC in step 51 "
                               "of 60 (all_reduce 1 GiB): culprit: rank 3"))
      << d.Summary();
  // Asked again a day later: the same figures.
  EXPECT_EQ(DiagnoseSweep(facts, ranks, kNow + absl::Hours(24)).Summary(),
            d.Summary());
}

TEST(SweepDiagnosisTest, AStoredDiagnosisKeepsItsCulprits) {
  SweepFacts facts = Facts(SweepState::kFailed, 50);
  facts.ended = Ago(100);
  std::vector<RankReport> ranks = AllInStep51For12s();
  ranks[3].reachable = false;
  Diagnosis stored = Diagnose(ranks, Ago(100));
  SweepDiagnosis d = DiagnoseStored(facts, stored);
  EXPECT_EQ(d.state, SweepState::kFailed);
  EXPECT_EQ(d.ranks.culprits.size(), 1u);
  EXPECT_TRUE(absl::StrContains(d.Summary(), "culprit: rank 3")) << d.Summary();
}

TEST(SweepDiagnosisTest, AFailureWithoutCulpritGivesItsError) {
  SweepFacts facts = Facts(SweepState::kInterrupted, 3);
  facts.ended = Ago(1);
  facts.error = "the coordinator stopped while the sweep ran";
  SweepDiagnosis d = DiagnoseSweep(facts, {}, kNow);
  EXPECT_TRUE(absl::EndsWith(d.Summary(),
                             "in step 4 of 60 (all_reduce 1 GiB): the "
                             "coordinator stopped while the sweep ran"))
      << d.Summary();
}

TEST(SweepDiagnosisTest, ASucceededSweepHasNothingToDiagnose) {
  SweepFacts facts = Facts(SweepState::kSucceeded, 60);
  facts.ended = Ago(1);
  SweepDiagnosis d = DiagnoseSweep(facts, AllInStep51For12s(), kNow);
  EXPECT_TRUE(d.ranks.culprits.empty());
  EXPECT_TRUE(absl::StrContains(d.Summary(), "60 steps done; nothing to"))
      << d.Summary();
}

TEST(SweepDiagnosisTest, StateNamesRoundTrip) {
  for (SweepState s : {SweepState::kRunning, SweepState::kSucceeded,
                       SweepState::kFailed, SweepState::kAborted,
                       SweepState::kInterrupted, SweepState::kPreempted}) {
    SweepState parsed = SweepState::kStalled;
    ASSERT_TRUE(ParseSweepState(SweepStateName(s), &parsed));
    EXPECT_EQ(parsed, s);
  }
  SweepState unused;
  EXPECT_FALSE(ParseSweepState("stalled", &unused));
  EXPECT_FALSE(ParseSweepState("", &unused));
  VerdictKind kind;
  ASSERT_TRUE(ParseVerdictKind("finished_not_next", &kind));
  EXPECT_EQ(kind, VerdictKind::kFinishedNotNext);
  EXPECT_FALSE(ParseVerdictKind("bogus", &kind));
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::core
