#include "absl/time/clock.h"
#include "daemon/security/cert_authority.h"
#include "daemon/security/x509_check.h"
#include "gtest/gtest.h"

namespace fabricpulse::security {
namespace {
namespace FP_UNITY_ID {

KeyAndCertificate Ca() {
  auto ca = CreateCertificateAuthority("test CA", absl::Hours(24));
  EXPECT_TRUE(ca.ok()) << ca.status();
  return *ca;
}

KeyAndCertificate Leaf(const KeyAndCertificate& ca,
                       absl::Duration valid = absl::Hours(1)) {
  CertificateRequest r;
  r.common_name = "agent/n1";
  r.uri_sans = {"spiffe://fabricpulse/agent/n1"};
  r.dns_sans = {"localhost"};
  r.ip_sans = {"127.0.0.1"};
  r.valid_for = valid;
  auto leaf = IssueCertificate(ca, r);
  EXPECT_TRUE(leaf.ok()) << leaf.status();
  return *leaf;
}

TEST(X509Test, IssuedCertificateCarriesItsIdentityAndVerifies) {
  const KeyAndCertificate ca = Ca();
  const KeyAndCertificate leaf = Leaf(ca);
  auto summary = SummarizeCertificate(leaf.certificate_pem);
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_EQ(summary->uri_sans,
            std::vector<std::string>{"spiffe://fabricpulse/agent/n1"});
  EXPECT_EQ(summary->subject, "CN=agent/n1");
  EXPECT_LT(summary->not_before, absl::Now());
  EXPECT_GT(summary->not_after, absl::Now() + absl::Minutes(59));
  EXPECT_TRUE(
      CheckKeyMatchesCertificate(leaf.key_pem, leaf.certificate_pem).ok());
  EXPECT_TRUE(VerifyCertificateChain(leaf.certificate_pem, ca.certificate_pem,
                                     absl::Now())
                  .ok());
}

TEST(X509Test, WrongKeyOtherCaAndExpiryAreRefused) {
  const KeyAndCertificate ca = Ca();
  const KeyAndCertificate other_ca = Ca();
  const KeyAndCertificate leaf = Leaf(ca);
  const KeyAndCertificate stranger = Leaf(other_ca);
  EXPECT_EQ(
      CheckKeyMatchesCertificate(stranger.key_pem, leaf.certificate_pem).code(),
      absl::StatusCode::kInvalidArgument);
  absl::Status foreign = VerifyCertificateChain(
      stranger.certificate_pem, ca.certificate_pem, absl::Now());
  EXPECT_EQ(foreign.code(), absl::StatusCode::kInvalidArgument);
  absl::Status expired = VerifyCertificateChain(
      leaf.certificate_pem, ca.certificate_pem, absl::Now() + absl::Hours(2));
  EXPECT_NE(expired.message().find("expired"), std::string::npos) << expired;
  EXPECT_FALSE(SummarizeCertificate("not a pem").ok());
  EXPECT_FALSE(CheckKeyMatchesCertificate("junk", leaf.certificate_pem).ok());
}

TEST(X509Test, MalformedSansAreRefused) {
  CertificateRequest r;
  r.common_name = "x";
  r.ip_sans = {"not-an-ip"};
  EXPECT_EQ(IssueCertificate(Ca(), r).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::security
