#include "daemon/core/phase_timer.h"

#include "absl/strings/match.h"
#include "gtest/gtest.h"

namespace fabricpulse::core {
namespace {
namespace FP_UNITY_ID {

TEST(PhaseTimerTest, SummaryNamesEveryPhaseInOrderWithATotal) {
  PhaseTimer timer;
  timer.Mark("plan");
  timer.Add("writes", absl::Microseconds(250));
  timer.Add("writes", absl::Microseconds(50));
  timer.Mark("run");
  const std::string s = timer.Summary();
  EXPECT_TRUE(absl::StartsWith(s, "plan ")) << s;
  EXPECT_TRUE(absl::StrContains(s, ", writes 300us, run ")) << s;
  EXPECT_TRUE(absl::StrContains(s, "; total ")) << s;
  EXPECT_TRUE(absl::EndsWith(s, "us")) << s;
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::core
