// Why a status failed, as a type (never its message text): a payload of
// the absl::Status that crosses processes as gRPC status details
// (common/grpc_status.h; proto/fabricpulse/v1/status.proto).
#pragma once

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace fabricpulse::core {

enum class StatusReason {
  kNone,
  kMembersBusy,        // a member node runs another sweep
  kSweepLeaseEnded,    // an agent's sweep lease ended
  kMemberUnavailable,  // a member is lost, silent or not ready; none live
};

// The payload's type URL (that of the proto message ErrorInfo).
inline constexpr absl::string_view kStatusReasonUrl =
    "type.googleapis.com/fabricpulse.v1.ErrorInfo";

// `status` with `reason` attached (an OK status stays OK).
absl::Status WithReason(absl::Status status, StatusReason reason);

// The reason attached to `status`, kNone when there is none.
StatusReason ReasonOf(const absl::Status& status);

// `status` with `prefix` in front of its message, its code and reason kept.
absl::Status Prefixed(const absl::Status& status, absl::string_view prefix);

// "MEMBERS_BUSY", ...: the proto enum's value names; "" for kNone.
absl::string_view StatusReasonName(StatusReason reason);
StatusReason StatusReasonFromName(absl::string_view name);

}  // namespace fabricpulse::core
