#include "tests/scale/link_model.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "daemon/core/op_traits.h"

namespace fabricpulse::scale {
namespace {

constexpr double kMinFraction = 0.97;
constexpr double kTailFraction = 1.05;
constexpr double kInitFixedSeconds = 1e-3;

// A uniform value in [0, 1) from (step, rank): SplitMix64's finalizer.
double Uniform(int step, int rank) {
  uint64_t x = (static_cast<uint64_t>(static_cast<uint32_t>(step)) << 32) |
               static_cast<uint32_t>(rank);
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  x ^= x >> 31;
  return static_cast<double>(x >> 11) * 0x1.0p-53;
}

}  // namespace

absl::Status ValidateLinkModel(const LinkModel& model) {
  if (!(model.link_gbps > 0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "link_gbps: ", model.link_gbps, " is out of range; must be > 0"));
  }
  if (!(model.latency_us >= 0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "latency_us: ", model.latency_us, " is out of range; must be >= 0"));
  }
  if (!(model.jitter >= 0 && model.jitter < 1)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "jitter: ", model.jitter, " is out of range; allowed: [0, 1)"));
  }
  return absl::OkStatus();
}

double LinkBytesPerSecond(const LinkModel& model) {
  return model.link_gbps * 1e9 / 8;
}

int LatencyHops(core::Op op, int nranks) {
  const int others = std::max(1, nranks - 1);
  switch (op) {
    case core::Op::kAllReduce:
      return 2 * others;
    case core::Op::kSendRecv:
      return 1;
    default:
      return others;
  }
}

double StepSeconds(const LinkModel& model, const core::Step& step, int nranks) {
  const double latency = LatencyHops(step.op, nranks) * model.latency_us * 1e-6;
  const double wire = static_cast<double>(step.bytes) *
                      core::BusBandwidthFactor(step.op, nranks) /
                      LinkBytesPerSecond(model);
  return latency + wire;
}

v1::RankTiming RankTimingFor(const LinkModel& model, const core::Step& step,
                             int nranks, int rank, double slow_factor) {
  const double base = StepSeconds(model, step, nranks);
  const double u = Uniform(step.index, rank);
  const double mean = base * slow_factor * (1 + model.jitter * u);
  v1::RankTiming timing;
  // A slow node enters each op (slow_factor - 1) x the step's time late;
  // healthy ranks arrive within a tenth of the jitter.
  timing.set_arrival_seconds(base * (slow_factor - 1 + model.jitter * u / 10));
  timing.set_rank(rank);
  timing.set_mean_seconds(mean);
  timing.set_p50_seconds(mean);
  timing.set_min_seconds(mean * kMinFraction);
  timing.set_max_seconds(mean * kTailFraction);
  timing.set_p99_seconds(mean * kTailFraction);
  timing.set_wrong(0);
  return timing;
}

double CommInitSeconds(const LinkModel& model, int nranks) {
  return std::max(0, nranks - 1) * model.latency_us * 1e-6 + kInitFixedSeconds;
}

}  // namespace fabricpulse::scale
