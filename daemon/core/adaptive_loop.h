// The batch loop of an adaptive step, shared by the backends: run a batch,
// propose, agree with the other ranks, apply the stop rule
// (adaptive_iters.h), repeat. The backend supplies how a batch of timed
// iterations runs and how the ranks agree (Communicator::AgreeMax); time
// comes from a Clock, so tests drive it.
//
// Thread-safety: a pure function of its arguments; the callbacks run on
// the calling thread.
#pragma once

#include <functional>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "daemon/core/adaptive_iters.h"
#include "daemon/core/clock.h"

namespace fabricpulse::core {

// Runs `iterations` timed ops and sets `seconds` to one entry per op: each
// op's own time when they were timed one by one, else the batch's mean
// repeated (a loop timed as a whole).
using TimedBatch =
    std::function<absl::Status(int iterations, std::vector<double>* seconds)>;
// The element-wise maximum of `values` over every rank (AgreeMax).
using AgreeMaxFn = std::function<absl::StatusOr<std::vector<double>>(
    const std::vector<double>& values)>;

struct AdaptiveRun {
  // Every timed iteration's entry, in order (batches concatenated).
  std::vector<double> seconds;
  int iterations = 0;
  int batches = 0;
  StopReason reason = StopReason::kContinue;
};

// Runs batches until DecideNextBatch stops: the first of
// adaptive.min_iters, then as the rule says; after each, one AgreeMax of
// this rank's BatchProposal. The confidence interval is over the
// per-iteration times less the first of each batch (it follows a drained
// stream, which can offset it: adaptive_loop.cc), or with
// `batch_means` (the batches were timed as a whole) over the batch means.
// AdaptiveRun.seconds keeps every iteration. Elapsed time counts from the call.
// `resolution_seconds`: the tick of the timer behind `batch`'s times
// (RelativeHalfWidth: equal ticks are not a converged mean).
// Errors: those of `batch` and `agree`, returned at once (the caller's
// communicator is broken then).
absl::StatusOr<AdaptiveRun> RunAdaptiveBatches(
    const AdaptiveIters& adaptive, bool batch_means, double resolution_seconds,
    const TimedBatch& batch, const AgreeMaxFn& agree, Clock& clock);

}  // namespace fabricpulse::core
