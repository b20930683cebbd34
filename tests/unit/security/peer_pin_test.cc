#include "daemon/security/peer_pin.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fabricpulse::security {
namespace {
namespace FP_UNITY_ID {

using ::testing::HasSubstr;

// Issue 31, item 2: an agent obeys the coordinator it registered with.
TEST(PeerPinTest, OnlyThePinnedIdentityOfItsRolePasses) {
  PeerPin pin(Role::kCoordinator);
  // Nothing pinned yet: no coordinator passes; other roles are not its
  // business (the policy judges them).
  absl::Status none = pin.Check({Role::kCoordinator, "main"});
  EXPECT_EQ(none.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(none.message(), HasSubstr("(none yet)"));
  EXPECT_TRUE(pin.Check({Role::kOperator, "alice"}).ok());

  pin.Set({Role::kCoordinator, "main"});
  EXPECT_TRUE(pin.Check({Role::kCoordinator, "main"}).ok());
  absl::Status other = pin.Check({Role::kCoordinator, "other-cluster"});
  EXPECT_EQ(other.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(other.message(),
              HasSubstr("coordinator/other-cluster is not the coordinator "
                        "this process registered with (coordinator/main)"));
  // An identity of another role is never pinned.
  pin.Set({Role::kAgent, "n1"});
  EXPECT_EQ(pin.Get()->ToString(), "coordinator/main");
  // A re-registration with a renamed coordinator moves the pin.
  pin.Set({Role::kCoordinator, "main-2"});
  EXPECT_FALSE(pin.Check({Role::kCoordinator, "main"}).ok());
  EXPECT_TRUE(pin.Check({Role::kCoordinator, "main-2"}).ok());
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::security
