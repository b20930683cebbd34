#include "daemon/core/status_reason.h"

#include <string>
#include <utility>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"

namespace fabricpulse::core {
namespace {

constexpr std::pair<StatusReason, absl::string_view> kReasonNames[] = {
    {StatusReason::kMembersBusy, "MEMBERS_BUSY"},
    {StatusReason::kSweepLeaseEnded, "SWEEP_LEASE_ENDED"},
    {StatusReason::kMemberUnavailable, "MEMBER_UNAVAILABLE"},
};

}  // namespace

absl::string_view StatusReasonName(StatusReason reason) {
  for (const auto& [r, name] : kReasonNames) {
    if (r == reason) return name;
  }
  return "";
}

StatusReason StatusReasonFromName(absl::string_view name) {
  for (const auto& [r, n] : kReasonNames) {
    if (n == name) return r;
  }
  return StatusReason::kNone;
}

absl::Status WithReason(absl::Status status, StatusReason reason) {
  if (status.ok() || reason == StatusReason::kNone) return status;
  status.SetPayload(kStatusReasonUrl, absl::Cord(StatusReasonName(reason)));
  return status;
}

StatusReason ReasonOf(const absl::Status& status) {
  auto payload = status.GetPayload(kStatusReasonUrl);
  if (!payload) return StatusReason::kNone;
  return StatusReasonFromName(std::string(*payload));
}

absl::Status Prefixed(const absl::Status& status, absl::string_view prefix) {
  if (status.ok()) return status;
  absl::Status out(status.code(), absl::StrCat(prefix, status.message()));
  status.ForEachPayload([&out](absl::string_view url, const absl::Cord& value) {
    out.SetPayload(url, value);
  });
  return out;
}

}  // namespace fabricpulse::core
