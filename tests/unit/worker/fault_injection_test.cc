#include "daemon/worker/fault_injection.h"

#include "gtest/gtest.h"

namespace fabricpulse::worker {
namespace {

TEST(LateRankFaultTest, EmptyIsOff) {
  auto fault = ParseLateRankFault("");
  ASSERT_TRUE(fault.ok());
  EXPECT_EQ(fault->rank, -1);
}

TEST(LateRankFaultTest, RankAndDuration) {
  auto fault = ParseLateRankFault("3:5ms");
  ASSERT_TRUE(fault.ok()) << fault.status();
  EXPECT_EQ(fault->rank, 3);
  EXPECT_EQ(fault->delay, absl::Milliseconds(5));
  EXPECT_EQ(fault->every, 1);
  auto tenth = ParseLateRankFault("0:2ms:10");
  ASSERT_TRUE(tenth.ok()) << tenth.status();
  EXPECT_EQ(tenth->every, 10);
}

TEST(LateRankFaultTest, BadValuesNameTheVariableAndTheForm) {
  for (const char* bad : {"3", "x:5ms", "-1:5ms", "3:0s", "3:11s", "3:5",
                          "3:5ms:0", "3:5ms:x", "3:5ms:1:1"}) {
    auto fault = ParseLateRankFault(bad);
    ASSERT_FALSE(fault.ok()) << bad;
    EXPECT_EQ(fault.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(fault.status().message().find("FABRICPULSE_FAULT_LATE_RANK"),
              std::string::npos);
    EXPECT_NE(
        fault.status().message().find("0 < DURATION <= 10s and EVERY >= 1"),
        std::string::npos);
  }
}

}  // namespace
}  // namespace fabricpulse::worker
