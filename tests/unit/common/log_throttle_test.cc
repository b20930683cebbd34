#include "daemon/common/log_throttle.h"

#include "gtest/gtest.h"

namespace fabricpulse::common {
namespace {
namespace FP_UNITY_ID {

TEST(LogThrottleTest, FirstAtOnceThenOncePerIntervalWithTheCount) {
  LogThrottle t(absl::Seconds(10));
  const absl::Time t0 = absl::FromUnixSeconds(1000);
  uint64_t held = 99;
  EXPECT_TRUE(t.ShouldLog(t0, &held));
  EXPECT_EQ(held, 0u);
  EXPECT_FALSE(t.ShouldLog(t0 + absl::Seconds(1), &held));
  EXPECT_FALSE(t.ShouldLog(t0 + absl::Seconds(9), &held));
  EXPECT_TRUE(t.ShouldLog(t0 + absl::Seconds(10), &held));
  EXPECT_EQ(held, 2u);
  EXPECT_TRUE(t.ShouldLog(t0 + absl::Seconds(30), &held));
  EXPECT_EQ(held, 0u);
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::common
