// The logger keeps every message on one line, whatever it holds.
#include "daemon/core/log.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fabricpulse::core {
namespace {
namespace FP_UNITY_ID {

using ::testing::EndsWith;
using ::testing::HasSubstr;

int Lines(const std::string& text) {
  int n = 0;
  for (char c : text) n += c == '\n';
  return n;
}

TEST(LogTest, ANewlineInAMessageCannotForgeALine) {
  ::testing::internal::CaptureStderr();
  FP_LOG_INFO("agent node\nI 12:00:00.000 coordinator: forged joined");
  const std::string out = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(Lines(out), 1) << out;
  EXPECT_THAT(out, HasSubstr("agent node\\nI 12:00:00.000 coordinator"));
}

TEST(LogTest, AnOrdinaryMessageIsUnchanged) {
  ::testing::internal::CaptureStderr();
  FP_LOG_WARNING("agent node-a at 127.0.0.1:7071 joined (epoch 3)");
  const std::string out = ::testing::internal::GetCapturedStderr();
  EXPECT_THAT(out,
              EndsWith("agent node-a at 127.0.0.1:7071 joined (epoch 3)\n"));
}

TEST(LogTest, AHugeMessageIsCut) {
  ::testing::internal::CaptureStderr();
  FP_LOG_ERROR(std::string(3 << 20, 'x'));
  const std::string out = ::testing::internal::GetCapturedStderr();
  EXPECT_LT(out.size(), kMaxLogMessageBytes + 200);
  EXPECT_THAT(out, HasSubstr("... (3129344 more bytes)"));
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::core
