#include "daemon/core/adaptive_iters.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "daemon/core/range_error.h"
#include "daemon/core/sweep_spec.h"

namespace fabricpulse::core {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// t(0.975, dof) for dof 1..30.
constexpr double kT975[] = {12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469,
                            2.3646,  2.3060, 2.2622, 2.2281, 2.2010, 2.1788,
                            2.1604,  2.1448, 2.1314, 2.1199, 2.1098, 2.1009,
                            2.0930,  2.0860, 2.0796, 2.0739, 2.0687, 2.0639,
                            2.0595,  2.0555, 2.0518, 2.0484, 2.0452, 2.0423};
constexpr int kTableDof = static_cast<int>(sizeof(kT975) / sizeof(kT975[0]));

}  // namespace

bool operator==(const AdaptiveIters& a, const AdaptiveIters& b) {
  return a.enabled == b.enabled && a.tolerance == b.tolerance &&
         a.min_iters == b.min_iters && a.max_iters == b.max_iters &&
         a.step_time_cap == b.step_time_cap;
}

std::string DescribeAdaptive(const AdaptiveIters& a) {
  if (!a.enabled) return "";
  return absl::StrCat("iters auto (tolerance ", a.tolerance, ", min ",
                      a.min_iters, ", max ", a.max_iters, ", cap ",
                      absl::FormatDuration(a.step_time_cap), ")");
}

absl::Status ValidateAdaptive(const AdaptiveIters& a, bool graph) {
  if (!a.enabled) return absl::OkStatus();
  // NaN fails every comparison: written so that it is refused.
  if (!(a.tolerance > 0 && a.tolerance <= kMaxTolerance)) {
    return RangeError("tolerance", absl::StrCat(a.tolerance),
                      absl::StrCat("more than 0, up to ", kMaxTolerance,
                                   " (relative: 0.01 is 1 %)"));
  }
  if (a.min_iters < kMinMinIters || a.min_iters > kMaxIters) {
    return RangeError("min_iters", absl::StrCat(a.min_iters),
                      absl::StrCat(kMinMinIters, " to ", kMaxIters,
                                   " (a confidence interval needs two "
                                   "samples)"));
  }
  if (a.max_iters < a.min_iters || a.max_iters > kMaxIters) {
    return RangeError(
        "max_iters", absl::StrCat(a.max_iters),
        absl::StrCat("min_iters (", a.min_iters, ") to ", kMaxIters));
  }
  if (a.step_time_cap <= absl::ZeroDuration() ||
      a.step_time_cap > kMaxStepTimeCap) {
    return RangeError("step_time_cap", absl::FormatDuration(a.step_time_cap),
                      "more than 0s, up to 1h");
  }
  if (graph) {
    return absl::InvalidArgumentError(
        "graph: CUDA-graph mode cannot run with adaptive iterations (iters "
        "auto, the spec's `adaptive`): a graph replays a fixed, captured "
        "number of iterations; allowed: graph with a fixed iters, or "
        "adaptive iterations without graph");
  }
  return absl::OkStatus();
}

double StudentT975(int dof) {
  if (dof < 1) return kInfinity;
  if (dof <= kTableDof) return kT975[dof - 1];
  // Cornish-Fisher expansion of t around the normal quantile.
  const double z = 1.959963984540054;
  const double v = dof;
  const double z3 = z * z * z, z5 = z3 * z * z, z7 = z5 * z * z;
  return z + (z3 + z) / (4 * v) + (5 * z5 + 16 * z3 + 3 * z) / (96 * v * v) +
         (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * v * v * v);
}

double RelativeHalfWidth(const std::vector<double>& samples,
                         double resolution_seconds) {
  const size_t n = samples.size();
  if (n < 2) return kInfinity;
  const double mean = std::accumulate(samples.begin(), samples.end(), 0.0) / n;
  double squares = 0;
  for (double s : samples) squares += (s - mean) * (s - mean);
  const double rounding = resolution_seconds / std::sqrt(12.0);
  if (squares == 0 && rounding == 0) return 0;
  if (!(mean > 0)) return kInfinity;
  const double sd = std::max(std::sqrt(squares / (n - 1)), rounding);
  const double half_width = StudentT975(static_cast<int>(n - 1)) * sd /
                            std::sqrt(static_cast<double>(n));
  const double relative = half_width / mean;
  return std::isnan(relative) ? kInfinity : relative;
}

std::vector<double> ProposalToValues(const BatchProposal& p) {
  return {p.relative_half_width, p.elapsed_seconds, p.seconds_per_iteration};
}

BatchProposal ProposalFromValues(const std::vector<double>& values) {
  BatchProposal p;
  if (values.size() > 0) p.relative_half_width = values[0];
  if (values.size() > 1) p.elapsed_seconds = values[1];
  if (values.size() > 2) p.seconds_per_iteration = values[2];
  return p;
}

const char* StopReasonName(StopReason reason) {
  switch (reason) {
    case StopReason::kContinue:
      return "continue";
    case StopReason::kConverged:
      return "converged";
    case StopReason::kMaxIters:
      return "max_iters";
    case StopReason::kTimeCap:
      return "time_cap";
  }
  return "?";
}

BatchDecision DecideNextBatch(const AdaptiveIters& a, int iterations,
                              bool batch_means, const BatchProposal& agreed) {
  BatchDecision d;
  if (iterations >= a.min_iters && agreed.relative_half_width <= a.tolerance) {
    d.reason = StopReason::kConverged;
    return d;
  }
  if (iterations >= a.max_iters) {
    d.reason = StopReason::kMaxIters;
    return d;
  }
  const double cap = absl::ToDoubleSeconds(a.step_time_cap);
  const double left = cap - agreed.elapsed_seconds;
  if (!(left > 0)) {
    d.reason = StopReason::kTimeCap;
    return d;
  }
  int64_t batch = a.min_iters;
  if (!batch_means) {
    // The half-width shrinks as 1/sqrt(n): n * (h / tolerance)^2 in all.
    const double ratio = agreed.relative_half_width / a.tolerance;
    const double needed = iterations * ratio * ratio;
    batch = needed < 2.0 * iterations
                ? static_cast<int64_t>(std::ceil(needed)) - iterations
                : iterations;
    batch = std::clamp<int64_t>(batch, 1, std::max(iterations, 1));
  }
  batch = std::min<int64_t>(batch, a.max_iters - iterations);
  if (agreed.seconds_per_iteration > 0) {
    const double fit = std::floor(left / agreed.seconds_per_iteration);
    if (fit < 1) {
      d.reason = StopReason::kTimeCap;
      return d;
    }
    if (fit < batch) batch = static_cast<int64_t>(fit);
  }
  d.next_batch = static_cast<int>(batch);
  return d;
}

}  // namespace fabricpulse::core
