#include "daemon/core/regression.h"

#include <algorithm>
#include <cmath>

namespace fabricpulse::core {

double Median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t mid = values.size() / 2;
  if (values.size() % 2 == 1) return values[mid];
  return (values[mid - 1] + values[mid]) / 2;
}

double ScaledMad(const std::vector<double>& values) {
  if (values.empty()) return 0;
  const double median = Median(values);
  std::vector<double> deviations;
  deviations.reserve(values.size());
  for (double v : values) deviations.push_back(std::fabs(v - median));
  return kMadScale * Median(std::move(deviations));
}

bool IsLatencyBound(uint64_t bytes, double baseline_busbw) {
  return bytes <= kLatencyBoundMaxBytes || !(baseline_busbw > 0);
}

RegressionVerdict JudgeStep(const RegressionRule& rule, uint64_t bytes,
                            double time_seconds, double busbw,
                            const std::vector<BaselineSample>& samples) {
  RegressionVerdict verdict;
  if (static_cast<int>(samples.size()) < std::max(rule.min_sweeps, 1)) {
    return verdict;
  }
  std::vector<double> times, busbws;
  for (const BaselineSample& s : samples) {
    times.push_back(s.time_seconds);
    busbws.push_back(s.busbw);
  }
  verdict.sweeps = static_cast<int>(samples.size());
  verdict.median_busbw = Median(busbws);
  verdict.spread_busbw = ScaledMad(busbws);
  verdict.median_time_seconds = Median(times);
  verdict.spread_time_seconds = ScaledMad(times);
  verdict.on_time = IsLatencyBound(bytes, verdict.median_busbw);
  verdict.noisy =
      verdict.on_time
          ? kSpreadFactor * verdict.spread_time_seconds >
                (1 / rule.threshold - 1) * verdict.median_time_seconds
          : kSpreadFactor * verdict.spread_busbw >
                (1 - rule.threshold) * verdict.median_busbw;
  if (verdict.on_time) {
    verdict.regression =
        std::isfinite(time_seconds) && verdict.median_time_seconds > 0 &&
        time_seconds > verdict.median_time_seconds / rule.threshold &&
        time_seconds - verdict.median_time_seconds >
            kSpreadFactor * verdict.spread_time_seconds;
  } else {
    verdict.regression =
        std::isfinite(busbw) && busbw < verdict.median_busbw * rule.threshold &&
        verdict.median_busbw - busbw > kSpreadFactor * verdict.spread_busbw;
  }
  return verdict;
}

}  // namespace fabricpulse::core
