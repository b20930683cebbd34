#include "daemon/core/sweep_outcome.h"

#include <utility>

namespace fabricpulse::core {
namespace {

constexpr std::pair<SweepOutcome, absl::string_view> kOutcomeNames[] = {
    {SweepOutcome::kRunning, "running"},
    {SweepOutcome::kSucceeded, "succeeded"},
    {SweepOutcome::kFailed, "failed"},
    {SweepOutcome::kAborted, "aborted"},
    {SweepOutcome::kInterrupted, "interrupted"},
    {SweepOutcome::kPreempted, "preempted"},
};

}  // namespace

absl::string_view SweepOutcomeName(SweepOutcome outcome) {
  for (const auto& [o, name] : kOutcomeNames) {
    if (o == outcome) return name;
  }
  return "unknown";
}

SweepOutcome ParseSweepOutcome(absl::string_view name) {
  for (const auto& [o, n] : kOutcomeNames) {
    if (n == name) return o;
  }
  return SweepOutcome::kUnknown;
}

}  // namespace fabricpulse::core
