// A sweep's outcome as a type: the history, the JSON and the proto keep
// its name (SweepFinished.status, SweepInfo.status); code decides on this
// enum, parsed from the name in one place.
#pragma once

#include "absl/strings/string_view.h"

namespace fabricpulse::core {

enum class SweepOutcome {
  kUnknown,  // a name this build does not know
  kRunning,
  kSucceeded,
  kFailed,
  kAborted,
  kInterrupted,  // the coordinator stopped while it ran
  kPreempted,    // yielded to a foreign compute process: not a fault
};

// "running", "succeeded", "failed", "aborted", "interrupted", "preempted";
// "unknown" for kUnknown.
absl::string_view SweepOutcomeName(SweepOutcome outcome);
SweepOutcome ParseSweepOutcome(absl::string_view name);

}  // namespace fabricpulse::core
