#include "daemon/security/cert_authority.h"

#include <openssl/bn.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509v3.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "daemon/security/openssl_util.h"

namespace fabricpulse::security {
namespace {

using internal::BioPtr;
using internal::OpenSslError;
using internal::PkeyPtr;
using internal::X509Ptr;

constexpr absl::Duration kBackdate = absl::Minutes(5);

absl::StatusOr<PkeyPtr> NewKey() {
  PkeyPtr key(EVP_EC_gen("P-256"));
  if (!key) return OpenSslError("generating a P-256 key");
  return key;
}

absl::StatusOr<std::string> KeyPem(EVP_PKEY* key) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (!PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr,
                                nullptr)) {
    return OpenSslError("writing a private key");
  }
  return internal::BioContents(bio.get());
}

absl::StatusOr<std::string> CertificatePem(X509* cert) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (!PEM_write_bio_X509(bio.get(), cert)) {
    return OpenSslError("writing a certificate");
  }
  return internal::BioContents(bio.get());
}

// 127 random bits: positive, unique in practice.
absl::Status SetRandomSerial(X509* cert) {
  unsigned char bytes[16];
  if (RAND_bytes(bytes, sizeof(bytes)) != 1) {
    return OpenSslError("drawing a serial number");
  }
  bytes[0] &= 0x7f;
  BIGNUM* bn = BN_bin2bn(bytes, sizeof(bytes), nullptr);
  const bool ok =
      bn != nullptr &&
      BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert)) != nullptr;
  BN_free(bn);
  return ok ? absl::OkStatus() : OpenSslError("setting a serial number");
}

absl::Status AddExtension(X509* cert, X509* issuer, int nid,
                          const std::string& value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str());
  if (ext == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("certificate extension ",
                                                   OBJ_nid2sn(nid), " '", value,
                                                   "' is malformed"));
  }
  const bool ok = X509_add_ext(cert, ext, -1) == 1;
  X509_EXTENSION_free(ext);
  return ok ? absl::OkStatus()
            : OpenSslError(absl::StrCat("adding ", OBJ_nid2sn(nid)));
}

// A certificate for `key` named `common_name`, valid from now - kBackdate
// for `valid_for`, issued by `issuer` (itself when null).
absl::StatusOr<X509Ptr> NewCertificate(EVP_PKEY* key,
                                       const std::string& common_name,
                                       absl::Duration valid_for, X509* issuer) {
  X509Ptr cert(X509_new());
  if (!cert || X509_set_version(cert.get(), 2) != 1) {
    return OpenSslError("creating a certificate");
  }
  absl::Status serial = SetRandomSerial(cert.get());
  if (!serial.ok()) return serial;
  time_t now = absl::ToTimeT(absl::Now());
  // long is 64 bits here: seconds fit for any validity.
  const long before = -static_cast<long>(absl::ToInt64Seconds(kBackdate));
  const long after = static_cast<long>(absl::ToInt64Seconds(valid_for));
  if (!X509_time_adj_ex(X509_getm_notBefore(cert.get()), 0, before, &now) ||
      !X509_time_adj_ex(X509_getm_notAfter(cert.get()), 0, after, &now)) {
    return OpenSslError("setting the validity");
  }
  X509_NAME* name = X509_get_subject_name(cert.get());
  if (!X509_NAME_add_entry_by_txt(
          name, "CN", MBSTRING_UTF8,
          reinterpret_cast<const unsigned char*>(common_name.c_str()), -1, -1,
          0)) {
    return OpenSslError("setting the subject");
  }
  if (!X509_set_issuer_name(cert.get(), issuer != nullptr
                                            ? X509_get_subject_name(issuer)
                                            : name) ||
      !X509_set_pubkey(cert.get(), key)) {
    return OpenSslError("setting the issuer and key");
  }
  return cert;
}

absl::StatusOr<KeyAndCertificate> Finish(X509* cert, EVP_PKEY* key,
                                         EVP_PKEY* signer) {
  if (X509_sign(cert, signer, EVP_sha256()) == 0) {
    return OpenSslError("signing the certificate");
  }
  KeyAndCertificate out;
  absl::StatusOr<std::string> key_pem = KeyPem(key);
  if (!key_pem.ok()) return key_pem.status();
  absl::StatusOr<std::string> cert_pem = CertificatePem(cert);
  if (!cert_pem.ok()) return cert_pem.status();
  out.key_pem = std::move(*key_pem);
  out.certificate_pem = std::move(*cert_pem);
  return out;
}

}  // namespace

absl::StatusOr<KeyAndCertificate> CreateCertificateAuthority(
    const std::string& common_name, absl::Duration valid_for) {
  absl::StatusOr<PkeyPtr> key = NewKey();
  if (!key.ok()) return key.status();
  absl::StatusOr<X509Ptr> cert =
      NewCertificate(key->get(), common_name, valid_for, nullptr);
  if (!cert.ok()) return cert.status();
  X509* c = cert->get();
  for (auto [nid, value] :
       {std::pair<int, std::string>{NID_basic_constraints,
                                    "critical,CA:TRUE,pathlen:0"},
        {NID_key_usage, "critical,keyCertSign,cRLSign"},
        {NID_subject_key_identifier, "hash"}}) {
    absl::Status added = AddExtension(c, c, nid, value);
    if (!added.ok()) return added;
  }
  return Finish(c, key->get(), key->get());
}

absl::StatusOr<KeyAndCertificate> IssueCertificate(
    const KeyAndCertificate& ca, const CertificateRequest& request) {
  BioPtr ca_key_bio = internal::MemoryBio(ca.key_pem);
  PkeyPtr ca_key(
      PEM_read_bio_PrivateKey(ca_key_bio.get(), nullptr, nullptr, nullptr));
  BioPtr ca_cert_bio = internal::MemoryBio(ca.certificate_pem);
  X509Ptr ca_cert(
      PEM_read_bio_X509(ca_cert_bio.get(), nullptr, nullptr, nullptr));
  if (!ca_key || !ca_cert) {
    internal::ClearOpenSslErrors();
    return absl::InvalidArgumentError("CA key or certificate does not parse");
  }
  absl::StatusOr<PkeyPtr> key = NewKey();
  if (!key.ok()) return key.status();
  absl::StatusOr<X509Ptr> cert = NewCertificate(
      key->get(), request.common_name, request.valid_for, ca_cert.get());
  if (!cert.ok()) return cert.status();
  std::vector<std::string> sans;
  for (const std::string& u : request.uri_sans) sans.push_back("URI:" + u);
  for (const std::string& d : request.dns_sans) sans.push_back("DNS:" + d);
  for (const std::string& i : request.ip_sans) sans.push_back("IP:" + i);
  std::vector<std::pair<int, std::string>> extensions = {
      {NID_basic_constraints, "critical,CA:FALSE"},
      {NID_key_usage, "critical,digitalSignature,keyEncipherment"},
      {NID_ext_key_usage, "serverAuth,clientAuth"},
      {NID_subject_key_identifier, "hash"},
      {NID_authority_key_identifier, "keyid:always"}};
  if (!sans.empty()) {
    extensions.push_back({NID_subject_alt_name, absl::StrJoin(sans, ",")});
  }
  for (const auto& [nid, value] : extensions) {
    absl::Status added = AddExtension(cert->get(), ca_cert.get(), nid, value);
    if (!added.ok()) return added;
  }
  return Finish(cert->get(), key->get(), ca_key.get());
}

}  // namespace fabricpulse::security
