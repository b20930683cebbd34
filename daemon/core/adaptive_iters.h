// Adaptive iteration counts: the settings, their validation and the stop
// rule. A step in adaptive mode runs its timed iterations in batches (the
// first of min_iters) and stops once the 95 % confidence interval of the
// mean time is within `tolerance` of the mean, or at max_iters, or when the
// step's time cap is reached. Every rank must stop after the same batch, so
// the rule decides from values the ranks agreed on (the element-wise
// maximum of every rank's BatchProposal, Communicator::AgreeMax) and from
// the iteration count, which is the same on every rank.
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"

namespace fabricpulse::core {

// Defaults, as the CLI and config give them.
inline constexpr double kDefaultTolerance = 0.01;
inline constexpr int kDefaultMinIters = 5;
inline constexpr int kDefaultMaxIters = 100;
inline constexpr absl::Duration kDefaultStepTimeCap = absl::Seconds(2);
// Limits that ValidateAdaptive enforces (max_iters also <= kMaxIters).
inline constexpr double kMaxTolerance = 0.5;
inline constexpr int kMinMinIters = 2;  // a confidence interval needs two
inline constexpr absl::Duration kMaxStepTimeCap = absl::Hours(1);

struct AdaptiveIters {
  // Off: every step runs SweepSpec::iters timed iterations.
  bool enabled = false;
  // Relative half-width of the 95 % confidence interval of the mean that
  // ends a step (0.01: the mean is known within 1 %).
  double tolerance = kDefaultTolerance;
  int min_iters = kDefaultMinIters;
  int max_iters = kDefaultMaxIters;
  // Bound on one step's timed batches and their agreements (warm-ups, the
  // data check and NCCL's percentile pass are outside it). The first batch
  // always runs whole.
  absl::Duration step_time_cap = kDefaultStepTimeCap;
};

bool operator==(const AdaptiveIters& a, const AdaptiveIters& b);

// "iters auto (tolerance 0.01, min 5, max 100, cap 2s)", or "" when off.
std::string DescribeAdaptive(const AdaptiveIters& adaptive);

// Checks the settings when enabled (nothing when off). `graph` is the
// spec's CUDA-graph mode, which replays a captured, fixed number of
// iterations and so cannot run adaptively. Errors: INVALID_ARGUMENT whose
// message starts with the field (tolerance, min_iters, max_iters,
// step_time_cap, graph), then the value and the allowed range.
absl::Status ValidateAdaptive(const AdaptiveIters& adaptive, bool graph);

// The 0.975 quantile of Student's t with `dof` >= 1 degrees of freedom
// (two-sided 95 %): a table to 30, Cornish-Fisher beyond (error < 1e-4).
double StudentT975(int dof);

// Relative half-width of the 95 % confidence interval of the samples' mean:
// t(n-1) * s / sqrt(n) / mean, with s the sample standard deviation.
// +infinity for fewer than two samples or a non-positive mean with spread.
// s is at least resolution_seconds / sqrt(12), the spread that rounding to
// the timer's tick alone leaves: samples that all read the same tick (a
// 650 ns op on a 1 ns clock, twice) bound the mean only to that tick, so
// they never meet a tolerance finer than it. With resolution_seconds 0,
// equal samples give 0.
double RelativeHalfWidth(const std::vector<double>& samples,
                         double resolution_seconds);

// What each rank proposes after a batch; the ranks agree on the element-
// wise maximum.
struct BatchProposal {
  // RelativeHalfWidth of this rank's samples so far.
  double relative_half_width = 0;
  // Seconds since this rank's first timed batch started.
  double elapsed_seconds = 0;
  // elapsed_seconds / iterations so far: what one more iteration costs,
  // agreements included.
  double seconds_per_iteration = 0;
};
inline constexpr int kProposalValues = 3;
std::vector<double> ProposalToValues(const BatchProposal& proposal);
// Reads the first kProposalValues values (missing ones stay 0).
BatchProposal ProposalFromValues(const std::vector<double>& values);

enum class StopReason {
  kContinue,   // run another batch
  kConverged,  // the interval is within the tolerance (and >= min_iters)
  kMaxIters,   // max_iters ran
  kTimeCap,    // the cap is reached, or the next iteration would pass it
};
const char* StopReasonName(StopReason reason);

struct BatchDecision {
  StopReason reason = StopReason::kContinue;
  int next_batch = 0;  // iterations of the next batch (kContinue only)
};

// The stop rule, after `iterations` timed iterations in all, from the
// agreed proposal. In order: converged when the agreed half-width is at
// most the tolerance; max_iters reached; the cap reached, or no whole
// iteration left before it. Otherwise the next batch: with `batch_means`
// (the samples are batch means) min_iters, so that the batch means stay
// alike; else what the interval predicts it needs (the half-width shrinks
// as 1/sqrt(n)), at least 1 and at most as many as ran so far. Either is
// cut to what max_iters and the cap leave.
BatchDecision DecideNextBatch(const AdaptiveIters& adaptive, int iterations,
                              bool batch_means, const BatchProposal& agreed);

}  // namespace fabricpulse::core
