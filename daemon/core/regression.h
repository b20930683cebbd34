// The regression judge: is one step of a sweep slower than the same step of
// the recent completed sweeps, by more than the threshold AND by more than
// that step's own measured spread? Pure functions, no I/O.
//
// The rule (docs/verdicts.md "Baselines and regressions", docs/metrics.md):
//  - The baseline of a step is the window of the newest *succeeded* sweeps
//    of the same plan, op, dtype, size, placement, rank count and topology
//    (the caller selects them; running, failed, aborted and interrupted
//    sweeps never count). With fewer than `min_sweeps` samples there is no
//    baseline and never a regression.
//  - Baseline = median of the samples; spread = their median absolute
//    deviation scaled by 1.4826 (the MAD's factor to a normal distribution's
//    standard deviation).
//  - Bandwidth-bound steps are judged on busbw: a regression when
//      busbw < median_busbw * threshold  AND
//      median_busbw - busbw > kSpreadFactor * spread_busbw.
//  - Latency-bound steps are judged on time, with the same meaning of the
//    threshold (the step kept less than `threshold` of the baseline's
//    speed): a regression when
//      time > median_time / threshold  AND
//      time - median_time > kSpreadFactor * spread_time.
//  - A step is latency-bound when its size is at most kLatencyBoundMaxBytes
//    (64 KiB: below it every fabric's time per op is dominated by launch
//    and per-hop latency, and busbw rounds to 0.00 GB/s), or when its
//    baseline busbw is 0 (busbw carries no information, e.g. one rank).
// A non-finite measurement is never a regression.
//  - A baseline is *noisy* when 3 spreads are more than the drop the
//    threshold allows: then only drops larger than 3 spreads can regress,
//    and the verdict says so (RegressionVerdict::noisy) instead of passing
//    such steps silently.
#pragma once

#include <cstdint>
#include <vector>

namespace fabricpulse::core {

// Steps of at most this many bytes are judged on time.
inline constexpr uint64_t kLatencyBoundMaxBytes = 64 * 1024;
// How many spreads (scaled MADs) a step must be worse than the median by.
inline constexpr double kSpreadFactor = 3.0;
// MAD to standard deviation, for normally distributed samples.
inline constexpr double kMadScale = 1.4826;

// One baseline sweep's measurement of the step.
struct BaselineSample {
  double time_seconds = 0;
  double busbw = 0;  // bytes per second
};

struct RegressionRule {
  int min_sweeps = 5;      // fewer samples: no baseline
  double threshold = 0.9;  // 0 < threshold <= 1
};

struct RegressionVerdict {
  // Samples the baseline was computed from; 0 when there is no baseline
  // (fewer than min_sweeps samples), and then every field below is 0/false.
  int sweeps = 0;
  double median_busbw = 0;
  double spread_busbw = 0;
  double median_time_seconds = 0;
  double spread_time_seconds = 0;
  bool on_time = false;  // judged on time (latency-bound), else on busbw
  bool regression = false;
  // kSpreadFactor spreads exceed the drop the threshold allows (1 -
  // threshold of the median busbw; on time, 1 / threshold - 1 of the
  // median time): a drop to the threshold cannot be told from noise here.
  bool noisy = false;
};

// Median (mean of the middle two for even counts); 0 for no values.
double Median(std::vector<double> values);
// Median absolute deviation from the median, times kMadScale; 0 for no
// values.
double ScaledMad(const std::vector<double>& values);

// True when a step of `bytes` with this baseline busbw is judged on time.
bool IsLatencyBound(uint64_t bytes, double baseline_busbw);

// Judges one measured step (`time_seconds`, `busbw`) of `bytes` against
// `samples` (any order).
RegressionVerdict JudgeStep(const RegressionRule& rule, uint64_t bytes,
                            double time_seconds, double busbw,
                            const std::vector<BaselineSample>& samples);

}  // namespace fabricpulse::core
