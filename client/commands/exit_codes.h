// The CLI's exit codes (docs/exit-codes.md).
#pragma once

#include "absl/status/status.h"

namespace fabricpulse::client {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;       // sweep failed, hung or aborted
inline constexpr int kExitBadInput = 2;     // bad flags or spec
inline constexpr int kExitUnreachable = 3;  // unreachable or refused
// Members busy with another sweep, a member GPU busy with a foreign compute
// process, or the sweep preempted by one.
inline constexpr int kExitBusy = 4;
// A gate: sweep --fail-on-regression or --min-busbw, matrix
// --fail-on-flagged, compare --fail-on-slower.
inline constexpr int kExitGateFailed = 5;

// What each code means, for `fabricpulse --help` (keep docs/exit-codes.md
// in step).
struct ExitCodeMeaning {
  int code;
  const char* meaning;
};
inline constexpr ExitCodeMeaning kExitCodeMeanings[] = {
    {kExitOk, "success"},
    {kExitFailed,
     "a sweep failed, hung or was aborted, or its data check found wrong "
     "elements (the line names the culprit when known)"},
    {kExitBadInput,
     "bad input: an unknown command, flag or value (also a sweep id or plan "
     "the coordinator does not have)"},
    {kExitUnreachable,
     "the coordinator is unreachable or refused the call (TLS, role)"},
    {kExitBusy,
     "busy: the members run another sweep, a member GPU runs a foreign "
     "process, the sweep was preempted by one, or the caller has as many "
     "calls in flight as it may"},
    {kExitGateFailed,
     "a gate failed (--fail-on-regression, --min-busbw, --fail-on-flagged, "
     "--fail-on-slower)"},
};

// Exit code for a status returned by the coordinator.
inline int ExitCodeFor(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kOk:
      return kExitOk;
    case absl::StatusCode::kInvalidArgument:
      return kExitBadInput;
    case absl::StatusCode::kResourceExhausted:
      return kExitBusy;
    case absl::StatusCode::kPermissionDenied:
    case absl::StatusCode::kUnauthenticated:
      return kExitUnreachable;  // refused: TLS identity or role
    default:
      return kExitFailed;
  }
}

}  // namespace fabricpulse::client
