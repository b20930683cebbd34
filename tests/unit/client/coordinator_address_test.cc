// --coordinator checked before a connection is tried: each malformed form
// gets its own reason; a well-formed one and a gRPC scheme pass.
#include "client/commands/coordinator_address.h"

#include "absl/strings/match.h"
#include "gtest/gtest.h"

namespace fabricpulse::client {
namespace {
namespace FP_UNITY_ID {

std::string Why(absl::string_view address) {
  const absl::Status s = CheckCoordinatorAddress(address);
  if (s.ok()) return "ok";
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_TRUE(absl::StartsWith(s.message(), "--coordinator: '")) << s;
  return std::string(s.message());
}

TEST(CoordinatorAddressTest, WellFormedAddressesPass) {
  for (const char* ok : {"127.0.0.1:7070", "[::1]:7070", "coord.example:1",
                         "h:65535", "dns:///coord:7070", "unix:/run/x"}) {
    EXPECT_EQ(Why(ok), "ok") << ok;
  }
}

TEST(CoordinatorAddressTest, EachMalformedFormSaysWhy) {
  EXPECT_TRUE(absl::StrContains(Why("127.0.0.1"), "has no port"));
  EXPECT_TRUE(absl::StrContains(Why("[::1]"), "has no port"));
  EXPECT_TRUE(absl::StrContains(Why("::1:7070"), "without brackets"));
  EXPECT_TRUE(absl::StrContains(Why(":7070"), "has no host"));
  EXPECT_TRUE(absl::StrContains(Why("[]:7070"), "has no host"));
  for (const char* bad : {"h:0", "h:65536", "h:+7070", "h: 7070", "h:x"}) {
    EXPECT_TRUE(absl::StrContains(Why(bad), "not a number from 1 to 65535"))
        << bad;
  }
}

TEST(CoordinatorAddressTest, LiteralsAndSchemesNeedNoLookup) {
  EXPECT_TRUE(ResolveCoordinatorHost("127.0.0.1:7070").ok());
  EXPECT_TRUE(ResolveCoordinatorHost("[::1]:7070").ok());
  EXPECT_TRUE(ResolveCoordinatorHost("dns:///anything:1").ok());
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::client
