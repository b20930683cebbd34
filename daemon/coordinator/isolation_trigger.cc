#include "daemon/coordinator/isolation_trigger.h"

#include "absl/strings/match.h"
#include "daemon/coordinator/store/history_store.h"
#include "daemon/coordinator/sweep_recorder.h"

namespace fabricpulse::coordinator {

std::optional<IsolationStart> IsolationStartFor(const SweepEnd& end,
                                                const core::IsolateOn& on) {
  if (!on.any() || end.nodes.size() < 2 ||
      absl::StartsWith(end.trigger, kIsolationTriggerPrefix)) {
    return std::nullopt;
  }
  const std::string outcome = OutcomeName(end.status);
  // A client that went away is no fault (OutcomeName counts it failed).
  const bool failed = outcome == kSweepFailed &&
                      end.status.code() != absl::StatusCode::kCancelled;
  if (failed && on.failure) {
    const std::optional<IsolationStep>& step =
        end.failed ? end.failed : end.largest;
    if (step) return IsolationStart{"failure", *step};
  }
  if (end.regressed && on.regression &&
      (outcome == kSweepSucceeded || failed)) {
    return IsolationStart{"regression", *end.regressed};
  }
  return std::nullopt;
}

}  // namespace fabricpulse::coordinator
