#include "daemon/core/duration_text.h"

#include "gtest/gtest.h"

namespace fabricpulse::core {
namespace {
namespace FP_UNITY_ID {

TEST(ParseSecondsOrDurationTest, SecondsOrADurationString) {
  EXPECT_EQ(ParseSecondsOrDuration("30"), absl::Seconds(30));
  EXPECT_EQ(ParseSecondsOrDuration("0.5"), absl::Milliseconds(500));
  EXPECT_EQ(ParseSecondsOrDuration("1m30s"), absl::Seconds(90));
  EXPECT_EQ(ParseSecondsOrDuration("500ms"), absl::Milliseconds(500));
  EXPECT_EQ(ParseSecondsOrDuration("-1s"), absl::Seconds(-1));
}

TEST(ParseSecondsOrDurationTest, NonFiniteIsInfiniteAndWordsAreNothing) {
  EXPECT_EQ(ParseSecondsOrDuration("nan"), absl::InfiniteDuration());
  EXPECT_EQ(ParseSecondsOrDuration("inf"), absl::InfiniteDuration());
  EXPECT_EQ(ParseSecondsOrDuration("soon"), std::nullopt);
  EXPECT_EQ(ParseSecondsOrDuration(""), std::nullopt);
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::core
