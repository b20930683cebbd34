#include "daemon/security/identity.h"

#include "absl/strings/str_join.h"
#include "gtest/gtest.h"

namespace fabricpulse::security {
namespace {
namespace FP_UNITY_ID {

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

TEST(IdentityTest, ACertificateNamesExactlyOneIdentity) {
  using Uris = std::vector<std::string>;
  absl::StatusOr<Identity> one =
      SoleIdentity({"spiffe://fabricpulse/operator/alice"}, "fabricpulse");
  ASSERT_TRUE(one.ok()) << one.status();
  EXPECT_EQ(one->ToString(), "operator/alice");
  // Other schemes are not identities and do not count.
  EXPECT_TRUE(SoleIdentity({"https://x/y", "spiffe://fabricpulse/agent/n1"},
                           "fabricpulse")
                  .ok());
  for (const Uris& uris : {
           Uris{},
           Uris{"https://fabricpulse/operator/alice"},
           Uris{"spiffe://fabricpulse/operator/alice/extra"},
           Uris{"spiffe://fabricpulse/viewer/bob",
                "spiffe://fabricpulse/operator/mallory"},
           Uris{"spiffe://fabricpulse/operator/alice",
                "spiffe://fabricpulse/operator/alice"},
           Uris{"spiffe://fabricpulse/operator/alice",
                "spiffe://elsewhere/operator/alice"},
           Uris{"spiffe://elsewhere/operator/alice"},
       }) {
    absl::StatusOr<Identity> id = SoleIdentity(uris, "fabricpulse");
    ASSERT_FALSE(id.ok()) << absl::StrJoin(uris, ",");
    EXPECT_EQ(id.status().code(), absl::StatusCode::kUnauthenticated);
    EXPECT_NE(id.status().message().find("exactly one URI SAN "
                                         "spiffe://fabricpulse/<role>/<name>"),
              std::string::npos)
        << id.status();
  }
  EXPECT_EQ(SpiffeTrustDomain("spiffe://td/agent/n1"), "td");
  EXPECT_EQ(SpiffeTrustDomain("https://td/agent/n1"), "");
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

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::security
