// A folder of certificates made by FabricPulse's own CA: `fabricpulse local`
// and the tests make a throwaway one; `fabricpulse certs` makes one for a
// small or test deployment. Layout: ca.crt and ca.key (the CA), and one
// <role>-<name>.crt / <role>-<name>.key pair per identity. Keys are 0600.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "daemon/security/cert_authority.h"
#include "daemon/security/identity.h"
#include "daemon/security/tls_options.h"

namespace fabricpulse::security {

// Thread-compatible.
class CertSet {
 public:
  // Makes the folder (0700) and a new CA in it, valid for `valid_for`.
  // Errors: INVALID_ARGUMENT bad trust domain; ALREADY_EXISTS the folder
  // holds a CA; INTERNAL a file could not be written.
  static absl::StatusOr<CertSet> Create(const std::string& dir,
                                        const std::string& trust_domain,
                                        absl::Duration valid_for);
  // The CA already in `dir`. Errors: NOT_FOUND no CA there; INVALID_ARGUMENT
  // its files do not parse.
  static absl::StatusOr<CertSet> Open(const std::string& dir,
                                      const std::string& trust_domain);

  // Issues (or re-issues) a certificate for `id`, with the given DNS and IP
  // SANs besides its URI SAN, valid as long as the CA; returns the options
  // that use it. Errors: INVALID_ARGUMENT a bad name or SAN; INTERNAL.
  absl::StatusOr<TlsOptions> Issue(const Identity& id,
                                   const std::vector<std::string>& dns_sans,
                                   const std::vector<std::string>& ip_sans);
  // The options for an identity issued earlier (the files are not read).
  TlsOptions OptionsFor(const Identity& id) const;

  const std::string& dir() const { return dir_; }
  std::string CaFile() const { return dir_ + "/ca.crt"; }

 private:
  std::string dir_;
  std::string trust_domain_;
  absl::Duration valid_for_;
  KeyAndCertificate ca_;
};

// Writes `contents` to `path` with `mode`, replacing it atomically. Errors:
// INTERNAL naming the path.
absl::Status WritePrivateFile(const std::string& path,
                              const std::string& contents, int mode);

}  // namespace fabricpulse::security
