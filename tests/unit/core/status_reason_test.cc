// A status's reason: attached, read back, kept through a prefix, absent on
// statuses that carry none.
#include "daemon/core/status_reason.h"

#include "gtest/gtest.h"

namespace fabricpulse::core {
namespace {
namespace FP_UNITY_ID {

TEST(StatusReasonTest, AReasonIsReadBackAndKeptThroughAPrefix) {
  absl::Status busy = WithReason(absl::ResourceExhaustedError("node a busy"),
                                 StatusReason::kMembersBusy);
  EXPECT_EQ(ReasonOf(busy), StatusReason::kMembersBusy);
  absl::Status prefixed = Prefixed(busy, "node a: ");
  EXPECT_EQ(prefixed.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(prefixed.message(), "node a: node a busy");
  EXPECT_EQ(ReasonOf(prefixed), StatusReason::kMembersBusy);
}

TEST(StatusReasonTest, TheTextDecidesNothing) {
  // The words a text match used to look for carry no reason.
  EXPECT_EQ(ReasonOf(absl::UnavailableError("sweep lease expired")),
            StatusReason::kNone);
  EXPECT_EQ(ReasonOf(absl::ResourceExhaustedError("is busy with sweep x")),
            StatusReason::kNone);
  // An OK status stays OK, and so without a reason.
  EXPECT_TRUE(WithReason(absl::OkStatus(), StatusReason::kMembersBusy).ok());
  EXPECT_EQ(ReasonOf(absl::OkStatus()), StatusReason::kNone);
}

TEST(StatusReasonTest, NamesAreTheProtoEnumsAndRoundTrip) {
  for (StatusReason r :
       {StatusReason::kMembersBusy, StatusReason::kSweepLeaseEnded,
        StatusReason::kMemberUnavailable}) {
    EXPECT_FALSE(StatusReasonName(r).empty());
    EXPECT_EQ(StatusReasonFromName(StatusReasonName(r)), r);
  }
  EXPECT_EQ(StatusReasonName(StatusReason::kNone), "");
  EXPECT_EQ(StatusReasonFromName("NO_SUCH_REASON"), StatusReason::kNone);
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::core
