// Small RAII and error helpers over OpenSSL's C API, for this folder only.
#pragma once

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/x509.h>

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace fabricpulse::security::internal {

struct BioFree {
  void operator()(BIO* b) const { BIO_free_all(b); }
};
struct PkeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
struct X509Free {
  void operator()(X509* x) const { X509_free(x); }
};
using BioPtr = std::unique_ptr<BIO, BioFree>;
using PkeyPtr = std::unique_ptr<EVP_PKEY, PkeyFree>;
using X509Ptr = std::unique_ptr<X509, X509Free>;

// INTERNAL "<what>: <OpenSSL's queued errors>", clearing the queue.
absl::Status OpenSslError(absl::string_view what);
// Drops OpenSSL's queued errors.
void ClearOpenSslErrors();

// A read-only memory BIO over `data` (which must outlive it).
BioPtr MemoryBio(absl::string_view data);
// Everything written to a memory BIO so far.
std::string BioContents(BIO* bio);

}  // namespace fabricpulse::security::internal
