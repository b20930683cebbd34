#include "daemon/security/call_limiter.h"

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fabricpulse::security {
namespace {
namespace FP_UNITY_ID {

using ::testing::HasSubstr;

// Issue 31, item 4: one identity cannot hold more than its share.
TEST(CallLimiterTest, AnIdentityPastItsBoundIsRefusedAndOthersAreNot) {
  CallLimiter limiter({.per_identity = 3, .anonymous = 5});
  std::vector<CallSlot> held;
  for (int i = 0; i < 3; ++i) {
    absl::StatusOr<CallSlot> slot = limiter.AcquireFor("viewer/bob");
    ASSERT_TRUE(slot.ok()) << slot.status();
    held.push_back(*std::move(slot));
  }
  absl::StatusOr<CallSlot> refused = limiter.AcquireFor("viewer/bob");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(refused.status().message(),
              HasSubstr("viewer/bob has 3 calls in flight, the most one "
                        "identity may have at once"));
  EXPECT_EQ(limiter.refused(), 1u);
  EXPECT_EQ(limiter.InFlight("viewer/bob"), 3);
  // Healthy opposite: another identity is not held back by bob.
  EXPECT_TRUE(limiter.AcquireFor("operator/alice").ok());
  // A call that ends gives its place back.
  held.pop_back();
  EXPECT_EQ(limiter.InFlight("viewer/bob"), 2);
  EXPECT_TRUE(limiter.AcquireFor("viewer/bob").ok());
}

TEST(CallLimiterTest, AnIdentityLeavesTheTableWithItsLastCall) {
  CallLimiter limiter({.per_identity = 2, .anonymous = 5});
  {
    absl::StatusOr<CallSlot> a = limiter.AcquireFor("viewer/a");
    absl::StatusOr<CallSlot> b = limiter.AcquireFor("viewer/b");
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(limiter.identities(), 2u);
    // A moved slot is released once, by its new holder.
    CallSlot moved = *std::move(a);
    EXPECT_EQ(limiter.InFlight("viewer/a"), 1);
  }
  EXPECT_EQ(limiter.identities(), 0u);
  EXPECT_EQ(limiter.InFlight("viewer/a"), 0);
  EXPECT_EQ(limiter.refused(), 0u);
}

TEST(CallLimiterTest, TheBoundIsAtLeastOne) {
  CallLimiter limiter({.per_identity = 0, .anonymous = 0});
  EXPECT_EQ(limiter.per_identity(), 1);
  absl::StatusOr<CallSlot> first = limiter.AcquireFor("viewer/a");
  EXPECT_TRUE(first.ok());
  EXPECT_FALSE(limiter.AcquireFor("viewer/a").ok());
}

TEST(CallLimiterTest, CallersWithoutAnIdentityShareOneBound) {
  CallLimiter limiter({.per_identity = 1, .anonymous = 2});
  absl::StatusOr<CallSlot> a = limiter.AcquireFor(CallLimiter::kAnonymous);
  absl::StatusOr<CallSlot> b = limiter.AcquireFor(CallLimiter::kAnonymous);
  ASSERT_TRUE(a.ok() && b.ok());
  absl::StatusOr<CallSlot> c = limiter.AcquireFor(CallLimiter::kAnonymous);
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(),
              HasSubstr("callers without an identity have 2 calls in flight, "
                        "the most they may have together at once"));
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::security
