#include "daemon/security/openssl_util.h"

#include <openssl/err.h>

#include "absl/strings/str_cat.h"

namespace fabricpulse::security::internal {

absl::Status OpenSslError(absl::string_view what) {
  std::string details;
  unsigned long code;
  while ((code = ERR_get_error()) != 0) {
    char buf[256];
    ERR_error_string_n(code, buf, sizeof(buf));
    absl::StrAppend(&details, details.empty() ? "" : "; ", buf);
  }
  return absl::InternalError(
      absl::StrCat(what, details.empty() ? "" : ": ", details));
}

void ClearOpenSslErrors() { ERR_clear_error(); }

BioPtr MemoryBio(absl::string_view data) {
  return BioPtr(BIO_new_mem_buf(data.data(), static_cast<int>(data.size())));
}

std::string BioContents(BIO* bio) {
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio, &data);
  return n > 0 ? std::string(data, static_cast<size_t>(n)) : std::string();
}

}  // namespace fabricpulse::security::internal
