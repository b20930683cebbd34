// What `fabricpulse diagnose` says about one sweep: its state (running and
// progressing, stalled, failed, aborted by request, ...) and, only when
// something is wrong, the culprits of core::Diagnose. Pure functions; the
// coordinator supplies the facts (history, plan) and the ranks' records.
#pragma once

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "daemon/core/diagnosis.h"
#include "daemon/core/sweep_spec.h"

namespace fabricpulse::core {

enum class SweepState {
  kRunning,  // running and progressing: no culprit is named
  kStalled,  // running, but see DiagnoseSweep: the culprits are named
  kSucceeded,
  kFailed,
  kAborted,      // ended by an operator's abort (or the coordinator's stop)
  kInterrupted,  // the coordinator stopped while it ran
  kPreempted,    // yielded to a foreign compute process on a GPU: no fault
};

// "running", "stalled", "succeeded", "failed", "aborted", "interrupted",
// "preempted".
absl::string_view SweepStateName(SweepState state);
// The history's status names (all of the above but "stalled"); false for
// any other name.
bool ParseSweepState(absl::string_view name, SweepState* state);

// What the coordinator knows of the sweep besides its ranks' records.
struct SweepFacts {
  SweepState state = SweepState::kRunning;  // as recorded; never kStalled
  absl::Time started = absl::InfinitePast();
  absl::Time ended = absl::InfinitePast();  // InfinitePast while running
  std::vector<Step> steps;                  // the expansion; empty: unknown
  int steps_done = 0;                       // steps with a merged result
  std::string error;                        // as recorded ("" when none)
  // Running only (TimeoutBudget::PeerWait and StepStall of its op timeout).
  absl::Duration peer_wait_bound = absl::InfiniteDuration();
  absl::Duration step_bound = absl::InfiniteDuration();
};

struct SweepDiagnosis {
  SweepFacts facts;
  SweepState state = SweepState::kRunning;
  // The step (1-based) the sweep is in, or was in when it ended; 0 when it
  // had not started one; steps.size() + 1 when it was past its last one.
  int step = 0;
  // Running and stalled only: how far the slowest rank is from its peers
  // or in its step, the bound that applies, and the clause that says so
  // ("all 4 ranks in all_reduce 1 MiB for 12.0s, stalled after 785.0s").
  absl::Duration waited = absl::ZeroDuration();
  absl::Duration bound = absl::ZeroDuration();
  std::string progress;
  // Culprits only when stalled, failed or interrupted; evidence whenever
  // the ranks' records were read (or stored).
  Diagnosis ranks;

  // One line, e.g.
  //   "running: step 6 of 40 (all_reduce 1 MiB), no stall: all 4 ranks in
  //   all_reduce 1 MiB for
  //    12.0s (a stall after 785.0s)"
  //   "stalled in step 6 of 40 (all_reduce 1 MiB): rank 3 is unreachable;
  //    culprit: rank 3 (node b): ..."
  //   "aborted by request at 2024-05-01 12:00:05 UTC, 12.3s after it
  //    started, in step 6 of 40 (all_reduce 1 MiB), 5 steps done"
  //   "preempted at 2024-05-01 12:00:05 UTC, 12.3s after it started, in
  //    step 6 of 40 (all_reduce 1 MiB), 5 steps done: <the recorded error,
  //    naming node and GPU>; not a fault"
  //   "failed at 2024-05-01 12:00:05 UTC in step 6 of 40 (all_reduce 1 MiB):
  //    culprit: rank 3 (node b): ..."
  //   "succeeded at 2024-05-01 12:00:05 UTC: all 40 steps done; nothing to
  //    diagnose"
  std::string Summary() const;
  // The name of `step` ("all_reduce 1 MiB in-place"), "" when it is not one
  // of the known steps.
  std::string StepName() const;
};

// Whether DiagnoseSweep uses the ranks' records for a sweep in this state:
// running, failed and interrupted sweeps yes; succeeded, aborted and
// preempted ones not (an abort or a yield is no fault, and nothing failed in
// a succeeded sweep).
bool NeedsRankRecords(SweepState state);

// A running sweep is stalled when, in the ranks' records at `now`:
//   - a rank is unreachable or failed a step (a fault, at once); or
//   - a rank lags its peers longer than facts.peer_wait_bound: it has not
//     joined the step the others are in (measured from the first of them
//     joining it), or it has not finished a step that others finished
//     (measured from the first of them finishing it), or every rank
//     finished the last step recorded and none started the next; or
//   - every rank is in the same step, none finished, for longer than
//     facts.step_bound (measured from the first of them starting it).
// A stalled sweep gets core::Diagnose's culprits; a progressing one none
// (its evidence is kept). No records at all (the communicator is being
// built) is progress: its set-up has its own deadlines.
// A finished sweep (failed, interrupted) is diagnosed as of when it ended:
// durations ("stuck for", "ago") stop at facts.ended, never at `now`.
// Succeeded, aborted and preempted sweeps name no culprit and ignore
// `ranks`.
SweepDiagnosis DiagnoseSweep(const SweepFacts& facts,
                             const std::vector<RankReport>& ranks,
                             absl::Time now);

// A finished sweep with the diagnosis stored when it failed.
SweepDiagnosis DiagnoseStored(const SweepFacts& facts, Diagnosis stored);

}  // namespace fabricpulse::core
