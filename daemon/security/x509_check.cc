#include "daemon/security/x509_check.h"

#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include "absl/strings/str_cat.h"
#include "daemon/security/openssl_util.h"

namespace fabricpulse::security {
namespace {

using internal::BioPtr;
using internal::PkeyPtr;
using internal::X509Ptr;

struct StackFree {
  void operator()(STACK_OF(X509) * s) const { sk_X509_pop_free(s, X509_free); }
};
struct StoreFree {
  void operator()(X509_STORE* s) const { X509_STORE_free(s); }
};
struct StoreCtxFree {
  void operator()(X509_STORE_CTX* c) const { X509_STORE_CTX_free(c); }
};

// Every certificate of a PEM bundle, in order.
std::unique_ptr<STACK_OF(X509), StackFree> ReadAll(absl::string_view pem) {
  std::unique_ptr<STACK_OF(X509), StackFree> out(sk_X509_new_null());
  BioPtr bio = internal::MemoryBio(pem);
  while (X509* cert = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) {
    sk_X509_push(out.get(), cert);
  }
  internal::ClearOpenSslErrors();  // the read that ended the loop
  return out;
}

absl::Time AsnTime(const ASN1_TIME* t) {
  struct tm tm = {};
  if (ASN1_TIME_to_tm(t, &tm) != 1) return absl::InfinitePast();
  return absl::FromTM(tm, absl::UTCTimeZone());
}

}  // namespace

absl::StatusOr<CertificateSummary> SummarizeCertificate(absl::string_view pem) {
  auto all = ReadAll(pem);
  if (sk_X509_num(all.get()) == 0) {
    return absl::InvalidArgumentError("holds no PEM certificate");
  }
  X509* cert = sk_X509_value(all.get(), 0);
  CertificateSummary out;
  BioPtr subject(BIO_new(BIO_s_mem()));
  X509_NAME_print_ex(subject.get(), X509_get_subject_name(cert), 0,
                     XN_FLAG_RFC2253);
  out.subject = internal::BioContents(subject.get());
  out.not_before = AsnTime(X509_get0_notBefore(cert));
  out.not_after = AsnTime(X509_get0_notAfter(cert));
  auto* names = static_cast<GENERAL_NAMES*>(
      X509_get_ext_d2i(cert, NID_subject_alt_name, nullptr, nullptr));
  for (int i = 0; names != nullptr && i < sk_GENERAL_NAME_num(names); ++i) {
    const GENERAL_NAME* name = sk_GENERAL_NAME_value(names, i);
    if (name->type != GEN_URI) continue;
    const ASN1_IA5STRING* uri = name->d.uniformResourceIdentifier;
    out.uri_sans.emplace_back(reinterpret_cast<const char*>(uri->data),
                              static_cast<size_t>(uri->length));
  }
  GENERAL_NAMES_free(names);
  return out;
}

absl::Status CheckKeyMatchesCertificate(absl::string_view key_pem,
                                        absl::string_view certificate_pem) {
  BioPtr key_bio = internal::MemoryBio(key_pem);
  PkeyPtr key(
      PEM_read_bio_PrivateKey(key_bio.get(), nullptr, nullptr, nullptr));
  if (!key) {
    internal::ClearOpenSslErrors();
    return absl::InvalidArgumentError("holds no unencrypted PEM private key");
  }
  auto all = ReadAll(certificate_pem);
  if (sk_X509_num(all.get()) == 0) {
    return absl::InvalidArgumentError("certificate holds no PEM certificate");
  }
  if (X509_check_private_key(sk_X509_value(all.get(), 0), key.get()) != 1) {
    internal::ClearOpenSslErrors();
    return absl::InvalidArgumentError(
        "is not the private key of the certificate");
  }
  return absl::OkStatus();
}

absl::Status VerifyCertificateChain(absl::string_view certificate_pem,
                                    absl::string_view ca_pem, absl::Time at) {
  auto chain = ReadAll(certificate_pem);
  auto roots = ReadAll(ca_pem);
  if (sk_X509_num(roots.get()) == 0) {
    return absl::InvalidArgumentError("CA file holds no PEM certificate");
  }
  if (sk_X509_num(chain.get()) == 0) {
    return absl::InvalidArgumentError("holds no PEM certificate");
  }
  std::unique_ptr<X509_STORE, StoreFree> store(X509_STORE_new());
  for (int i = 0; i < sk_X509_num(roots.get()); ++i) {
    X509_STORE_add_cert(store.get(), sk_X509_value(roots.get(), i));
  }
  std::unique_ptr<X509_STORE_CTX, StoreCtxFree> ctx(X509_STORE_CTX_new());
  X509* leaf = sk_X509_value(chain.get(), 0);
  if (!X509_STORE_CTX_init(ctx.get(), store.get(), leaf, chain.get())) {
    return internal::OpenSslError("preparing the chain check");
  }
  X509_STORE_CTX_set_time(ctx.get(), 0, absl::ToTimeT(at));
  if (X509_verify_cert(ctx.get()) != 1) {
    const int error = X509_STORE_CTX_get_error(ctx.get());
    internal::ClearOpenSslErrors();
    return absl::InvalidArgumentError(
        absl::StrCat("does not verify against the CA: ",
                     X509_verify_cert_error_string(error)));
  }
  return absl::OkStatus();
}

}  // namespace fabricpulse::security
