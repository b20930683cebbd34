#include "daemon/security/caller.h"
#include "gtest/gtest.h"

namespace fabricpulse::security {
namespace {
namespace FP_UNITY_ID {

TEST(PeerHostTest, ThePortIsCutAndNothingElse) {
  EXPECT_EQ(PeerHostOf("ipv4:10.0.0.7:43210"), "ipv4:10.0.0.7");
  EXPECT_EQ(PeerHostOf("ipv6:[::1]:5555"), "ipv6:[::1]");
  EXPECT_EQ(PeerHostOf("ipv6:[fe80::1%eth0]:80"), "ipv6:[fe80::1%eth0]");
  // No port: as it is.
  EXPECT_EQ(PeerHostOf("unix:/run/fabricpulse.sock"),
            "unix:/run/fabricpulse.sock");
  EXPECT_EQ(PeerHostOf("ipv4:10.0.0.7:"), "ipv4:10.0.0.7:");
  EXPECT_EQ(PeerHostOf(""), "");
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::security
