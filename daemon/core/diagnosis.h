// Hang diagnosis: names the rank (and its node and GPU) that a stuck or
// failed collective is waiting for, from every rank's flight recorder, the
// way PyTorch's desync report does it. Pure functions; the coordinator
// gathers the reports and stores Diagnosis::ToJson() with the sweep.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace fabricpulse::core {

enum class OpState { kEnqueued, kStarted, kCompleted, kFailed };

// "enqueued", "started", "completed", "failed".
absl::string_view OpStateName(OpState state);

// One entry of a rank's flight recorder (ring of its last operations).
struct FlightRecord {
  uint64_t seq = 0;  // per communicator, 1-based, same numbering on every rank
  std::string op;    // "all_reduce", ...
  uint64_t bytes = 0;
  std::string dtype;
  absl::Time enqueued = absl::InfinitePast();
  absl::Time started = absl::InfinitePast();    // InfinitePast if not started
  absl::Time completed = absl::InfinitePast();  // InfinitePast if not completed
  OpState state = OpState::kEnqueued;
  std::string error;  // what went wrong when kFailed (may be empty)
};

// What one rank of the communicator reported, or why it could not.
struct RankReport {
  int rank = 0;
  std::string node;
  int gpu = -1;           // -1 for CPU ranks
  bool reachable = true;  // false: the worker or its agent did not answer
  // e.g. "agent lost: no heartbeat for 7s", "worker did not answer within 2s
  // (stopped?)", "worker process died".
  std::string unreachable_reason;
  std::vector<FlightRecord> records;  // oldest first (may be empty)
};

enum class VerdictKind {
  kUnreachable,
  kNeverJoined,
  kFinishedNotNext,
  kJoinedNotFinished,
  kFailed
};

// "unreachable", "never_joined", "finished_not_next", "joined_not_finished",
// "failed" (the spelling in ToJson()).
absl::string_view VerdictKindName(VerdictKind kind);
// The reverse of VerdictKindName; false for any other name.
bool ParseVerdictKind(absl::string_view name, VerdictKind* kind);

struct Verdict {
  VerdictKind kind = VerdictKind::kUnreachable;
  int rank = 0;
  std::string node;
  int gpu = -1;
  uint64_t seq = 0;  // the op in question (0 when unknown)
  std::string op;    // its name ("" when unknown)
  uint64_t bytes = 0;
  // now - the relevant timestamp (0 when unknown); see Diagnose().
  absl::Duration stuck_for = absl::ZeroDuration();
  // True only for the "every rank joined op N and none finished" case: no
  // rank stands out, so each of them is a suspect rather than the culprit.
  bool low_confidence = false;
  // One clause, without the rank: "never joined all_reduce #42 (1 MiB),
  // others waiting for 31.2s".
  std::string explanation;

  // "rank 3 (node gpu-b, GPU 1): " + explanation. The node and GPU parts are
  // left out when unknown (empty node, gpu -1).
  std::string Line() const;
};

struct Diagnosis {
  std::vector<Verdict> culprits;  // most likely first
  // One line per rank, in rank order: reachability and its last records
  // (seq, op, size, dtype, state and how long ago).
  std::vector<std::string> evidence;

  // One line for the CLI's stderr:
  //   "culprit: rank 3 (node gpu-b, GPU 1): never joined all_reduce #42
  //   (1 MiB), others waiting for 31.2s", followed by "; also ranks 5, 7"
  //   when there are more culprits;
  //   "no single culprit: all 4 ranks joined all_reduce #7 (1 MiB) and none
  //   finished, stuck for 12.0s: a fabric/link problem or a rank stuck inside
  //   the library" for the low-confidence case;
  //   "no culprit found" when there is no culprit.
  std::string Summary() const;

  // {"summary": "...", "culprits": [{"kind", "rank", "node", "gpu", "seq",
  // "op", "bytes", "stuck_for_seconds", "low_confidence", "explanation"}],
  // "evidence": ["..."]}: one line, valid JSON for UTF-8 strings (quotes,
  // backslashes and control characters are escaped; other bytes are copied).
  std::string ToJson() const;
};

// Classifies the ranks of one communicator; `ranks` may come in any order.
// Each rank gets at most one verdict, the first that applies of:
//   1. kUnreachable: not reachable. seq/op/bytes: its last known record;
//      stuck_for: since that record's last state change.
//   2. kFailed: a record in state kFailed (a real error inside the op; a
//      timeout or abort leaves a record "started"). The highest such seq;
//      stuck_for: since it completed, else started, else was enqueued.
//   The other reachable ranks are "active". Let N be the highest seq an
//   active rank recorded (failed ranks stopped at their failure, nobody waits
//   for them to join anything; unreachable ranks are not counted either).
//   An active rank whose highest seq K is below N did not join op N, the op
//   the others are in (K + 1 in lockstep; N is also what is left when a
//   rank lost its records, e.g. a restarted worker). seq/op/bytes: op N;
//   stuck_for: since the earliest enqueue of op N among active ranks
//   ("others waiting for"). It is
//   3. kFinishedNotNext when its last record (op K) is completed: it
//      finished all it was given and stopped issuing work (a host-side
//      problem, not a rank stuck inside NCCL/Gloo);
//   4. kNeverJoined when its last record is enqueued or started (still in op
//      K, which the others got through), or it recorded nothing at all.
//   5. kJoinedNotFinished, only when 1-4 found nobody (otherwise the ranks
//      waiting in op N are victims of those culprits) and every active rank
//      is at op N: the ranks whose op N is not completed while some other
//      rank completed it. If no rank completed it, every active rank gets
//      this verdict with low_confidence set (a fabric/link problem or a rank
//      stuck inside the library), unless it is the only active rank, which
//      is then the culprit with full confidence. stuck_for: since the rank
//      started op N (enqueued when not started).
// Culprits are ordered unreachable, failed, never joined, finished not next,
// joined not finished, then by rank. Nothing treats any rank (rank 0
// included) as the reference. Durations use `now` and the records'
// timestamps, taken on different nodes: a negative one (clock skew) counts
// as zero, an unknown one (InfinitePast) gives zero. Free text (node names,
// reasons, errors) has control characters replaced by spaces in the
// human-readable lines; Verdict::node keeps the original.
Diagnosis Diagnose(const std::vector<RankReport>& ranks, absl::Time now);

}  // namespace fabricpulse::core
