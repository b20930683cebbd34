#include "daemon/core/diagnosis.h"

#include <cctype>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"

namespace fabricpulse::core {
namespace {
namespace FP_UNITY_ID {

constexpr uint64_t kMiB = 1 << 20;
const absl::Time kNow = absl::FromUnixSeconds(1700000000);

absl::Time Ago(double seconds) { return kNow - absl::Seconds(seconds); }

// An all_reduce of `bytes` floats enqueued `enqueued_ago` seconds before kNow;
// started at once, completed one second later when kCompleted.
FlightRecord Rec(uint64_t seq, OpState state, double enqueued_ago,
                 uint64_t bytes = kMiB) {
  FlightRecord r;
  r.seq = seq;
  r.op = "all_reduce";
  r.bytes = bytes;
  r.dtype = "float";
  r.state = state;
  r.enqueued = Ago(enqueued_ago);
  if (state != OpState::kEnqueued) r.started = r.enqueued;
  if (state == OpState::kCompleted) r.completed = r.enqueued + absl::Seconds(1);
  return r;
}

// Ops 1..last, 10 s apart; all completed except `last`, which is in `state`
// and was enqueued `last_ago` seconds before kNow.
std::vector<FlightRecord> Trace(uint64_t last, OpState state, double last_ago) {
  std::vector<FlightRecord> records;
  for (uint64_t seq = 1; seq <= last; ++seq) {
    records.push_back(Rec(seq, seq == last ? state : OpState::kCompleted,
                          last_ago + 10.0 * static_cast<double>(last - seq)));
  }
  return records;
}

RankReport Rank(int rank, std::string node, int gpu,
                std::vector<FlightRecord> records) {
  RankReport r;
  r.rank = rank;
  r.node = std::move(node);
  r.gpu = gpu;
  r.records = std::move(records);
  return r;
}

RankReport Unreachable(int rank, std::string node, int gpu, std::string reason,
                       std::vector<FlightRecord> records) {
  RankReport r = Rank(rank, std::move(node), gpu, std::move(records));
  r.reachable = false;
  r.unreachable_reason = std::move(reason);
  return r;
}

// Ranks 0..3 on two nodes, two GPUs each.
std::string NodeOf(int rank) { return rank < 2 ? "gpu-a" : "gpu-b"; }
int GpuOf(int rank) { return rank % 2; }
RankReport Rank4(int rank, std::vector<FlightRecord> records) {
  return Rank(rank, NodeOf(rank), GpuOf(rank), std::move(records));
}

// A small strict JSON checker (RFC 8259 grammar, no semantics).
class JsonChecker {
 public:
  explicit JsonChecker(const std::string& text) : s_(text) {}
  bool Valid() {
    SkipSpace();
    if (!Value()) return false;
    SkipSpace();
    return i_ == s_.size();
  }

 private:
  void SkipSpace() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' ||
                              s_[i_] == '\r' || s_[i_] == '\t')) {
      ++i_;
    }
  }
  bool Eat(char c) {
    SkipSpace();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  bool Literal(const char* word) {
    const std::string w(word);
    if (s_.compare(i_, w.size(), w) != 0) return false;
    i_ += w.size();
    return true;
  }
  bool Value() {
    SkipSpace();
    if (i_ >= s_.size()) return false;
    switch (s_[i_]) {
      case '{':
        return Object();
      case '[':
        return Array();
      case '"':
        return String();
      case 't':
        return Literal("true");
      case 'f':
        return Literal("false");
      case 'n':
        return Literal("null");
      default:
        return Number();
    }
  }
  bool Object() {
    ++i_;
    if (Eat('}')) return true;
    do {
      SkipSpace();
      if (!String() || !Eat(':') || !Value()) return false;
    } while (Eat(','));
    return Eat('}');
  }
  bool Array() {
    ++i_;
    if (Eat(']')) return true;
    do {
      if (!Value()) return false;
    } while (Eat(','));
    return Eat(']');
  }
  bool String() {
    if (i_ >= s_.size() || s_[i_] != '"') return false;
    ++i_;
    while (i_ < s_.size()) {
      const unsigned char c = static_cast<unsigned char>(s_[i_++]);
      if (c == '"') return true;
      if (c < 0x20) return false;
      if (c != '\\') continue;
      if (i_ >= s_.size()) return false;
      const char e = s_[i_++];
      if (e == 'u') {
        for (int k = 0; k < 4; ++k) {
          if (i_ >= s_.size() ||
              !std::isxdigit(static_cast<unsigned char>(s_[i_++]))) {
            return false;
          }
        }
      } else if (std::string("\"\\/bfnrt").find(e) == std::string::npos) {
        return false;
      }
    }
    return false;
  }
  bool Digits() {
    const size_t start = i_;
    while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) {
      ++i_;
    }
    return i_ > start;
  }
  bool Number() {
    if (i_ < s_.size() && s_[i_] == '-') ++i_;
    if (i_ < s_.size() && s_[i_] == '0') {
      ++i_;
    } else if (!Digits()) {
      return false;
    }
    if (i_ < s_.size() && s_[i_] == '.') {
      ++i_;
      if (!Digits()) return false;
    }
    if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
      ++i_;
      if (i_ < s_.size() && (s_[i_] == '+' || s_[i_] == '-')) ++i_;
      if (!Digits()) return false;
    }
    return true;
  }

  const std::string& s_;
  size_t i_ = 0;
};

TEST(JsonCheckerTest, AcceptsAndRejects) {
  EXPECT_TRUE(JsonChecker(R"({"a":[1,-2.5e3,true,null,"x\"\n"]})").Valid());
  EXPECT_FALSE(JsonChecker("{\"a\":\"line\nbreak\"}").Valid());
  EXPECT_FALSE(JsonChecker(R"({"a":"q"q"})").Valid());
  EXPECT_FALSE(JsonChecker(R"({"a":1,})").Valid());
  EXPECT_FALSE(JsonChecker(R"({"a":inf})").Valid());
}

TEST(DiagnosisNamesTest, StatesAndKinds) {
  EXPECT_EQ(OpStateName(OpState::kEnqueued), "enqueued");
  EXPECT_EQ(OpStateName(OpState::kStarted), "started");
  EXPECT_EQ(OpStateName(OpState::kCompleted), "completed");
  EXPECT_EQ(OpStateName(OpState::kFailed), "failed");
  EXPECT_EQ(VerdictKindName(VerdictKind::kUnreachable), "unreachable");
  EXPECT_EQ(VerdictKindName(VerdictKind::kNeverJoined), "never_joined");
  EXPECT_EQ(VerdictKindName(VerdictKind::kFinishedNotNext),
            "finished_not_next");
  EXPECT_EQ(VerdictKindName(VerdictKind::kJoinedNotFinished),
            "joined_not_finished");
  EXPECT_EQ(VerdictKindName(VerdictKind::kFailed), "failed");
}

TEST(DiagnoseTest, RankTwoNeverJoinedOpSeven) {
  // Ranks 0, 1, 3 are in op 7; rank 2 is still in op 6, which they finished.
  const Diagnosis d = Diagnose({Rank4(0, Trace(7, OpState::kStarted, 31.2)),
                                Rank4(1, Trace(7, OpState::kStarted, 30.0)),
                                Rank4(2, Trace(6, OpState::kStarted, 40.0)),
                                Rank4(3, Trace(7, OpState::kStarted, 29.5))},
                               kNow);
  ASSERT_EQ(d.culprits.size(), 1u);
  const Verdict& v = d.culprits[0];
  EXPECT_EQ(v.kind, VerdictKind::kNeverJoined);
  EXPECT_EQ(v.rank, 2);
  EXPECT_EQ(v.node, "gpu-b");
  EXPECT_EQ(v.gpu, 0);
  EXPECT_EQ(v.seq, 7u);
  EXPECT_EQ(v.op, "all_reduce");
  EXPECT_EQ(v.bytes, kMiB);
  // From the earliest enqueue of op 7 (rank 0's).
  EXPECT_NEAR(absl::ToDoubleSeconds(v.stuck_for), 31.2, 1e-6);
  EXPECT_FALSE(v.low_confidence);
  EXPECT_EQ(d.Summary(),
            "culprit: rank 2 (node gpu-b, GPU 0): never joined all_reduce #7 "
            "(1 MiB), others waiting for 31.2s; its all_reduce #6 (1 MiB) "
            "started 40.0s ago and never finished");
  ASSERT_EQ(d.evidence.size(), 4u);
  EXPECT_EQ(d.evidence[2],
            "rank 2 (node gpu-b, GPU 0): reachable; last 3 of 6 records: #4 "
            "all_reduce 1 MiB float completed 59.0s ago, #5 all_reduce 1 MiB "
            "float completed 49.0s ago, #6 all_reduce 1 MiB float started "
            "40.0s ago");
}

TEST(DiagnoseTest, CulpritIsRankZero) {
  // Reports arrive out of rank order; rank 0 is the one behind.
  const Diagnosis d = Diagnose({Rank4(3, Trace(7, OpState::kStarted, 12.0)),
                                Rank4(1, Trace(7, OpState::kStarted, 12.0)),
                                Rank4(0, Trace(6, OpState::kStarted, 20.0)),
                                Rank4(2, Trace(7, OpState::kStarted, 11.0))},
                               kNow);
  ASSERT_EQ(d.culprits.size(), 1u);
  EXPECT_EQ(d.culprits[0].kind, VerdictKind::kNeverJoined);
  EXPECT_EQ(d.culprits[0].rank, 0);
  EXPECT_EQ(d.culprits[0].seq, 7u);
  EXPECT_TRUE(absl::StartsWith(
      d.Summary(), "culprit: rank 0 (node gpu-a, GPU 0): never joined"));
  ASSERT_EQ(d.evidence.size(), 4u);
  for (int rank = 0; rank < 4; ++rank) {
    EXPECT_TRUE(absl::StartsWith(d.evidence[rank],
                                 "rank " + std::to_string(rank) + " "))
        << d.evidence[rank];
  }
}

TEST(DiagnoseTest, CulpritIsRankZeroThatFinishedAndStopped) {
  const Diagnosis d = Diagnose({Rank4(0, Trace(6, OpState::kCompleted, 20.0)),
                                Rank4(1, Trace(7, OpState::kStarted, 12.0))},
                               kNow);
  ASSERT_EQ(d.culprits.size(), 1u);
  EXPECT_EQ(d.culprits[0].kind, VerdictKind::kFinishedNotNext);
  EXPECT_EQ(d.culprits[0].rank, 0);
}

TEST(DiagnoseTest, RankFinishedOpSevenAndNeverJoinedEight) {
  const Diagnosis d = Diagnose({Rank4(0, Trace(8, OpState::kStarted, 31.2)),
                                Rank4(1, Trace(7, OpState::kCompleted, 36.0)),
                                Rank4(2, Trace(8, OpState::kStarted, 31.0)),
                                Rank4(3, Trace(8, OpState::kStarted, 31.0))},
                               kNow);
  ASSERT_EQ(d.culprits.size(), 1u);
  const Verdict& v = d.culprits[0];
  EXPECT_EQ(v.kind, VerdictKind::kFinishedNotNext);
  EXPECT_EQ(v.rank, 1);
  EXPECT_EQ(v.seq, 8u);
  EXPECT_NEAR(absl::ToDoubleSeconds(v.stuck_for), 31.2, 1e-6);
  EXPECT_EQ(d.Summary(),
            "culprit: rank 1 (node gpu-a, GPU 1): finished all_reduce #7 "
            "(1 MiB) 35.0s ago but never joined all_reduce #8 (1 MiB), others "
            "waiting for 31.2s (it stopped issuing work)");
}

TEST(DiagnoseTest, BehindRankWhoseLastOpNeverStartedNeverJoined) {
  const Diagnosis d = Diagnose({Rank4(0, Trace(7, OpState::kStarted, 5.0)),
                                Rank4(1, Trace(6, OpState::kEnqueued, 9.0))},
                               kNow);
  ASSERT_EQ(d.culprits.size(), 1u);
  EXPECT_EQ(d.culprits[0].kind, VerdictKind::kNeverJoined);
  EXPECT_EQ(d.culprits[0].explanation,
            "never joined all_reduce #7 (1 MiB), others waiting for 5.0s; its "
            "all_reduce #6 (1 MiB) was enqueued 9.0s ago and never started");
}

TEST(DiagnoseTest, EveryoneJoinedNobodyFinished) {
  std::vector<RankReport> ranks;
  for (int rank = 0; rank < 4; ++rank) {
    ranks.push_back(
        Rank4(rank, Trace(5, OpState::kStarted, rank == 3 ? 12.0 : 11.5)));
  }
  const Diagnosis d = Diagnose(ranks, kNow);
  ASSERT_EQ(d.culprits.size(), 4u);
  for (int rank = 0; rank < 4; ++rank) {
    const Verdict& v = d.culprits[rank];
    EXPECT_EQ(v.kind, VerdictKind::kJoinedNotFinished);
    EXPECT_EQ(v.rank, rank);
    EXPECT_EQ(v.seq, 5u);
    EXPECT_TRUE(v.low_confidence);
    EXPECT_TRUE(absl::StrContains(
        v.explanation,
        "all ranks joined op #5 and none finished: a fabric/link problem or a "
        "rank stuck inside the library"))
        << v.explanation;
  }
  EXPECT_EQ(d.Summary(),
            "no single culprit: all 4 ranks joined all_reduce #5 (1 MiB) and "
            "none finished, stuck for 12.0s: a fabric/link problem or a rank "
            "stuck inside the library");
}

TEST(DiagnoseTest, RanksThatDidNotFinishWhileOthersDid) {
  const Diagnosis d = Diagnose({Rank4(0, Trace(5, OpState::kCompleted, 20.0)),
                                Rank4(1, Trace(5, OpState::kCompleted, 20.0)),
                                Rank4(2, Trace(5, OpState::kStarted, 20.0)),
                                Rank4(3, Trace(5, OpState::kStarted, 19.0))},
                               kNow);
  ASSERT_EQ(d.culprits.size(), 2u);
  EXPECT_EQ(d.culprits[0].rank, 2);
  EXPECT_EQ(d.culprits[1].rank, 3);
  for (const Verdict& v : d.culprits) {
    EXPECT_EQ(v.kind, VerdictKind::kJoinedNotFinished);
    EXPECT_FALSE(v.low_confidence);
  }
  EXPECT_EQ(d.Summary(),
            "culprit: rank 2 (node gpu-b, GPU 0): joined all_reduce #5 (1 MiB) "
            "but did not finish it while 2 other ranks did, stuck for 20.0s; "
            "also rank 3");
}

TEST(DiagnoseTest, EveryoneFinishedIsNoCulprit) {
  const Diagnosis d = Diagnose({Rank4(0, Trace(5, OpState::kCompleted, 2.0)),
                                Rank4(1, Trace(5, OpState::kCompleted, 2.0))},
                               kNow);
  EXPECT_TRUE(d.culprits.empty());
  EXPECT_EQ(d.Summary(), "no culprit found");
  EXPECT_EQ(d.evidence.size(), 2u);
}

TEST(DiagnoseTest, StoppedRankWhileOthersWaitInOpFive) {
  const Diagnosis d = Diagnose(
      {Rank4(0, Trace(5, OpState::kStarted, 20.0)),
       Unreachable(1, "gpu-a", 1, "worker did not answer within 2s (stopped?)",
                   Trace(5, OpState::kStarted, 20.0)),
       Rank4(2, Trace(5, OpState::kStarted, 20.0)),
       Rank4(3, Trace(5, OpState::kStarted, 19.0))},
      kNow);
  // The others are victims waiting in op 5, not suspects.
  ASSERT_EQ(d.culprits.size(), 1u);
  const Verdict& v = d.culprits[0];
  EXPECT_EQ(v.kind, VerdictKind::kUnreachable);
  EXPECT_EQ(v.rank, 1);
  EXPECT_EQ(v.seq, 5u);
  EXPECT_NEAR(absl::ToDoubleSeconds(v.stuck_for), 20.0, 1e-6);
  EXPECT_EQ(d.Summary(),
            "culprit: rank 1 (node gpu-a, GPU 1): unreachable (worker did not "
            "answer within 2s (stopped?)), last known op all_reduce #5 (1 MiB) "
            "started 20.0s ago");
  EXPECT_TRUE(absl::StartsWith(
      d.evidence[1],
      "rank 1 (node gpu-a, GPU 1): unreachable (worker did not answer within "
      "2s (stopped?)); last 3 of 5 records:"))
      << d.evidence[1];
}

TEST(DiagnoseTest, UnreachableAgentWithoutRecords) {
  const Diagnosis d = Diagnose(
      {Rank4(0, Trace(3, OpState::kStarted, 8.0)),
       Rank4(1, Trace(3, OpState::kStarted, 8.0)),
       Unreachable(2, "gpu-b", 0, "agent lost: no heartbeat for 7s", {})},
      kNow);
  ASSERT_EQ(d.culprits.size(), 1u);
  EXPECT_EQ(d.culprits[0].seq, 0u);
  EXPECT_EQ(d.culprits[0].stuck_for, absl::ZeroDuration());
  EXPECT_EQ(d.Summary(),
            "culprit: rank 2 (node gpu-b, GPU 0): unreachable (agent lost: no "
            "heartbeat for 7s), no operation recorded");
  EXPECT_EQ(d.evidence[2],
            "rank 2 (node gpu-b, GPU 0): unreachable (agent lost: no heartbeat "
            "for 7s); no records");
}

TEST(DiagnoseTest, FailedOp) {
  std::vector<FlightRecord> failed = Trace(5, OpState::kStarted, 20.0);
  failed.back().state = OpState::kFailed;
  failed.back().error = "unhandled cuda error\n(illegal address)";
  const Diagnosis d = Diagnose({Rank4(0, Trace(5, OpState::kStarted, 20.0)),
                                Rank4(1, Trace(5, OpState::kStarted, 20.0)),
                                Rank4(2, Trace(5, OpState::kStarted, 20.0)),
                                Rank4(3, std::move(failed))},
                               kNow);
  ASSERT_EQ(d.culprits.size(), 1u);
  const Verdict& v = d.culprits[0];
  EXPECT_EQ(v.kind, VerdictKind::kFailed);
  EXPECT_EQ(v.rank, 3);
  EXPECT_EQ(v.seq, 5u);
  EXPECT_NEAR(absl::ToDoubleSeconds(v.stuck_for), 20.0, 1e-6);
  EXPECT_EQ(d.Summary(),
            "culprit: rank 3 (node gpu-b, GPU 1): failed in all_reduce #5 "
            "(1 MiB): unhandled cuda error (illegal address)");
  EXPECT_TRUE(absl::EndsWith(d.evidence[3],
                             "#5 all_reduce 1 MiB float failed 20.0s ago: "
                             "unhandled cuda error (illegal address)"))
      << d.evidence[3];
}

TEST(DiagnoseTest, FailedRankIsNotWaitedFor) {
  // Rank 1 failed op 4 at once; the others have not reached op 4 yet.
  std::vector<FlightRecord> failed = Trace(4, OpState::kStarted, 1.0);
  failed.back().state = OpState::kFailed;
  const Diagnosis d = Diagnose({Rank4(0, Trace(3, OpState::kCompleted, 2.0)),
                                Rank4(1, std::move(failed)),
                                Rank4(2, Trace(3, OpState::kCompleted, 2.0))},
                               kNow);
  ASSERT_EQ(d.culprits.size(), 1u);
  EXPECT_EQ(d.culprits[0].kind, VerdictKind::kFailed);
  EXPECT_EQ(d.culprits[0].rank, 1);
}

TEST(DiagnoseTest, CulpritsOrderedByKindThenRank) {
  std::vector<FlightRecord> failed = Trace(6, OpState::kStarted, 30.0);
  failed.back().state = OpState::kFailed;
  const Diagnosis d = Diagnose(
      {Rank(5, "gpu-c", 1, Trace(7, OpState::kStarted, 10.0)),
       Rank(4, "gpu-c", 0, Trace(7, OpState::kStarted, 10.0)),
       Unreachable(3, "gpu-b", 1, "worker process died", {}),
       Rank4(2, std::move(failed)), Rank4(1, Trace(6, OpState::kStarted, 30.0)),
       Rank4(0, Trace(6, OpState::kCompleted, 30.0))},
      kNow);
  ASSERT_EQ(d.culprits.size(), 4u);
  EXPECT_EQ(d.culprits[0].kind, VerdictKind::kUnreachable);
  EXPECT_EQ(d.culprits[0].rank, 3);
  EXPECT_EQ(d.culprits[1].kind, VerdictKind::kFailed);
  EXPECT_EQ(d.culprits[1].rank, 2);
  EXPECT_EQ(d.culprits[2].kind, VerdictKind::kNeverJoined);
  EXPECT_EQ(d.culprits[2].rank, 1);
  EXPECT_EQ(d.culprits[3].kind, VerdictKind::kFinishedNotNext);
  EXPECT_EQ(d.culprits[3].rank, 0);
  EXPECT_EQ(d.Summary(),
            "culprit: rank 3 (node gpu-b, GPU 1): unreachable (worker process "
            "died), no operation recorded; also ranks 2, 1, 0");
}

TEST(DiagnoseTest, SeveralRanksBehindOrderedByRank) {
  const Diagnosis d = Diagnose({Rank4(3, Trace(4, OpState::kStarted, 9.0)),
                                Rank4(0, Trace(5, OpState::kStarted, 3.0)),
                                Rank4(2, Trace(4, OpState::kStarted, 9.0)),
                                Rank4(1, Trace(4, OpState::kCompleted, 9.0))},
                               kNow);
  ASSERT_EQ(d.culprits.size(), 3u);
  EXPECT_EQ(d.culprits[0].rank, 2);
  EXPECT_EQ(d.culprits[0].kind, VerdictKind::kNeverJoined);
  EXPECT_EQ(d.culprits[1].rank, 3);
  EXPECT_EQ(d.culprits[1].kind, VerdictKind::kNeverJoined);
  EXPECT_EQ(d.culprits[2].rank, 1);
  EXPECT_EQ(d.culprits[2].kind, VerdictKind::kFinishedNotNext);
}

TEST(DiagnoseTest, EmptyRecordsEverywhereIsNoCulprit) {
  const Diagnosis d = Diagnose({Rank4(0, {}), Rank4(1, {})}, kNow);
  EXPECT_TRUE(d.culprits.empty());
  EXPECT_EQ(d.Summary(), "no culprit found");
  ASSERT_EQ(d.evidence.size(), 2u);
  EXPECT_EQ(d.evidence[0], "rank 0 (node gpu-a, GPU 0): reachable; no records");
}

TEST(DiagnoseTest, RankWithoutRecordsNeverJoined) {
  // E.g. a restarted worker: it lost its ring; the others wait in op 7.
  const Diagnosis d =
      Diagnose({Rank4(0, Trace(7, OpState::kStarted, 31.2)), Rank4(1, {}),
                Rank4(2, Trace(7, OpState::kStarted, 31.2))},
               kNow);
  ASSERT_EQ(d.culprits.size(), 1u);
  EXPECT_EQ(d.culprits[0].kind, VerdictKind::kNeverJoined);
  EXPECT_EQ(d.culprits[0].seq, 7u);
  EXPECT_EQ(d.Summary(),
            "culprit: rank 1 (node gpu-a, GPU 1): never joined all_reduce #7 "
            "(1 MiB), others waiting for 31.2s; it recorded no operation");
}

TEST(DiagnoseTest, NoReportsAtAll) {
  const Diagnosis d = Diagnose({}, kNow);
  EXPECT_TRUE(d.culprits.empty());
  EXPECT_TRUE(d.evidence.empty());
  EXPECT_EQ(d.Summary(), "no culprit found");
  EXPECT_TRUE(JsonChecker(d.ToJson()).Valid()) << d.ToJson();
}

TEST(DiagnoseTest, SingleRankStuckIsTheCulprit) {
  const Diagnosis d =
      Diagnose({Rank(0, "solo", 0, Trace(3, OpState::kStarted, 5.0))}, kNow);
  ASSERT_EQ(d.culprits.size(), 1u);
  EXPECT_EQ(d.culprits[0].kind, VerdictKind::kJoinedNotFinished);
  EXPECT_FALSE(d.culprits[0].low_confidence);
  EXPECT_EQ(d.Summary(),
            "culprit: rank 0 (node solo, GPU 0): joined all_reduce #3 (1 MiB) "
            "and did not finish it, stuck for 5.0s");
}

TEST(DiagnoseTest, SingleRankDone) {
  const Diagnosis d =
      Diagnose({Rank(0, "solo", 0, Trace(3, OpState::kCompleted, 5.0))}, kNow);
  EXPECT_TRUE(d.culprits.empty());
}

TEST(DiagnoseTest, CpuRanksAndSmallSizes) {
  // Gloo ranks: no GPU; a node name may be unknown.
  const Diagnosis d =
      Diagnose({Rank(0, "cpu-a", -1, {Rec(1, OpState::kStarted, 4.0, 8)}),
                Rank(1, "", -1, {}),
                Rank(2, "cpu-b", -1, {Rec(1, OpState::kStarted, 4.0, 8)})},
               kNow);
  ASSERT_EQ(d.culprits.size(), 1u);
  EXPECT_EQ(d.Summary(),
            "culprit: rank 1: never joined all_reduce #1 (8 B), others waiting "
            "for 4.0s; it recorded no operation");
  EXPECT_EQ(d.evidence[0],
            "rank 0 (node cpu-a): reachable; records: #1 all_reduce 8 B float "
            "started 4.0s ago");

  const Diagnosis odd =
      Diagnose({Rank(0, "cpu-a", -1, {Rec(1, OpState::kStarted, 4.0, 1536)}),
                Rank(1, "cpu-b", -1, {Rec(1, OpState::kCompleted, 4.0, 1536)})},
               kNow);
  EXPECT_EQ(odd.Summary(),
            "culprit: rank 0 (node cpu-a): joined all_reduce #1 (1.5 KiB) but "
            "did not finish it while 1 other rank did, stuck for 4.0s");
}

TEST(DiagnoseTest, UnknownTimesAndClockSkewGiveZero) {
  FlightRecord unknown;
  unknown.seq = 2;
  unknown.op = "broadcast";
  unknown.bytes = kMiB;
  unknown.state = OpState::kStarted;
  const Diagnosis d = Diagnose(
      {Rank4(0, {unknown}), Rank4(1, Trace(1, OpState::kCompleted, 9.0))},
      kNow);
  ASSERT_EQ(d.culprits.size(), 1u);
  EXPECT_EQ(d.culprits[0].stuck_for, absl::ZeroDuration());
  EXPECT_EQ(d.culprits[0].explanation,
            "finished all_reduce #1 (1 MiB) 8.0s ago but never joined "
            "broadcast #2 (1 MiB), others waiting in it (it stopped issuing "
            "work)");
  EXPECT_EQ(d.evidence[0],
            "rank 0 (node gpu-a, GPU 0): reachable; records: #2 broadcast "
            "1 MiB started");

  // The others' clock runs 2 s ahead of the coordinator's.
  const Diagnosis skew =
      Diagnose({Rank4(0, Trace(7, OpState::kStarted, -2.0)),
                Rank4(1, Trace(6, OpState::kCompleted, 8.0))},
               kNow);
  ASSERT_EQ(skew.culprits.size(), 1u);
  EXPECT_EQ(skew.culprits[0].stuck_for, absl::ZeroDuration());
  EXPECT_TRUE(absl::StrContains(skew.culprits[0].explanation,
                                "others waiting for 0.0s"));
}

TEST(DiagnosisJsonTest, ValidAndEscaped) {
  RankReport weird =
      Rank(2, "gpu\"b\nrack\\7", 0, Trace(6, OpState::kStarted, 40.0));
  const Diagnosis d =
      Diagnose({Rank4(0, Trace(7, OpState::kStarted, 31.2)),
                Rank4(1, Trace(7, OpState::kStarted, 31.2)), std::move(weird)},
               kNow);
  ASSERT_EQ(d.culprits.size(), 1u);
  EXPECT_EQ(d.culprits[0].node, "gpu\"b\nrack\\7");
  // Human-readable lines stay on one line.
  EXPECT_EQ(d.Summary().find('\n'), std::string::npos);
  EXPECT_TRUE(absl::StartsWith(
      d.Summary(), "culprit: rank 2 (node gpu\"b rack\\7, GPU 0): never"));

  const std::string json = d.ToJson();
  EXPECT_TRUE(JsonChecker(json).Valid()) << json;
  EXPECT_EQ(json.find('\n'), std::string::npos);
  EXPECT_TRUE(absl::StartsWith(json,
                               "{\"summary\":\"culprit: rank 2 (node "
                               "gpu\\\"b rack\\\\7, GPU 0): never"))
      << json;
  EXPECT_TRUE(absl::StrContains(
      json,
      "\"culprits\":[{\"kind\":\"never_joined\",\"rank\":2,\"node\":"
      "\"gpu\\\"b\\nrack\\\\7\",\"gpu\":0,\"seq\":7,\"op\":\"all_reduce\","
      "\"bytes\":1048576,\"stuck_for_seconds\":31.200,\"low_confidence\":"
      "false,\"explanation\":\"never joined all_reduce #7 (1 MiB), others "
      "waiting for 31.2s; "))
      << json;
  EXPECT_TRUE(absl::StrContains(json, "],\"evidence\":[\"rank 0 (node gpu-a"))
      << json;
  EXPECT_TRUE(absl::EndsWith(json, "\"]}")) << json;
}

TEST(DiagnosisJsonTest, ControlCharactersAndEmptyDiagnosis) {
  Diagnosis d;
  Verdict v;
  v.kind = VerdictKind::kFailed;
  v.node = std::string("a\tb\x01", 4);
  v.explanation = "x";
  v.stuck_for = absl::InfiniteDuration();
  d.culprits.push_back(v);
  d.evidence.push_back("e\r");
  const std::string json = d.ToJson();
  EXPECT_TRUE(JsonChecker(json).Valid()) << json;
  EXPECT_TRUE(absl::StrContains(json, "\"node\":\"a\\tb\\u0001\"")) << json;
  EXPECT_TRUE(absl::StrContains(json, "\"stuck_for_seconds\":null")) << json;
  EXPECT_TRUE(absl::StrContains(json, "\"evidence\":[\"e\\r\"]")) << json;

  EXPECT_EQ(
      Diagnosis().ToJson(),
      "{\"summary\":\"no culprit found\",\"culprits\":[],\"evidence\":[]}");
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::core
