#include "daemon/security/identity.h"

#include "gtest/gtest.h"

namespace fabricpulse::security {
namespace {

TEST(IdentityTest, RoundTripsEveryRole) {
  for (Role role :
       {Role::kCoordinator, Role::kAgent, Role::kOperator, Role::kViewer}) {
    const Identity id{role, "node-7.rack_2"};
    std::optional<Identity> parsed =
        ParseSpiffeId(SpiffeId("fabricpulse", id), "fabricpulse");
    ASSERT_TRUE(parsed.has_value()) << SpiffeId("fabricpulse", id);
    EXPECT_EQ(*parsed, id);
  }
  EXPECT_EQ(SpiffeId("td", {Role::kAgent, "n1"}), "spiffe://td/agent/n1");
}

TEST(IdentityTest, ForeignOrMalformedUrisAreNoIdentity) {
  for (const char* uri : {
           "spiffe://other/agent/n1",          // another trust domain
           "https://fabricpulse/agent/n1",     // another scheme
           "spiffe://fabricpulse/admin/n1",    // no such role
           "spiffe://fabricpulse/agent",       // no name
           "spiffe://fabricpulse/agent/a/b",   // too deep
           "spiffe://fabricpulse/agent/",      // empty name
           "spiffe://fabricpulse/agent/n\n1",  // control character
           "spiffe://fabricpulse/agent/n 1",   // space
       }) {
    EXPECT_FALSE(ParseSpiffeId(uri, "fabricpulse").has_value()) << uri;
  }
}

TEST(IdentityTest, NamesAreBoundedAndPlain) {
  EXPECT_TRUE(ValidateIdentityName(std::string(253, 'a'), "name").ok());
  absl::Status long_name = ValidateIdentityName(std::string(254, 'a'), "name");
  EXPECT_EQ(long_name.code(), absl::StatusCode::kInvalidArgument);
  // The message quotes a short prefix only.
  EXPECT_LT(long_name.message().size(), 200u) << long_name;
  EXPECT_FALSE(ValidateIdentityName("", "name").ok());
  EXPECT_FALSE(ValidateIdentityName("a\x01", "name").ok());
}

TEST(IdentityTest, TrustDomains) {
  EXPECT_TRUE(ValidateTrustDomain("fabricpulse").ok());
  EXPECT_TRUE(ValidateTrustDomain("prod.example-1").ok());
  EXPECT_FALSE(ValidateTrustDomain("").ok());
  EXPECT_FALSE(ValidateTrustDomain("Prod").ok());
  EXPECT_FALSE(ValidateTrustDomain("a/b").ok());
}

TEST(IdentityTest, RolesParse) {
  EXPECT_EQ(*ParseRole("operator"), Role::kOperator);
  absl::StatusOr<Role> bad = ParseRole("root");
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("allowed"), std::string::npos);
}

}  // namespace
}  // namespace fabricpulse::security
