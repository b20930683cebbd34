// HTTP basic authentication against bcrypt hashes, as exporter-toolkit's
// basic_auth_users does it, for the /metrics endpoint.
//
// - The time a check takes does not tell whether the user exists: every
//   configured name is compared (in constant time, as SHA-256 digests), and
//   an unknown user still pays one bcrypt against a dummy setting of the
//   highest configured cost.
// - Successful checks are cached (bounded: kCacheEntries, the oldest
//   dropped first), keyed by a SHA-256 digest of user, password and hash
//   (no password is kept), so a scrape every 15 s pays bcrypt (~70 ms at
//   cost 10) only on its first request. A changed hash (a reload) misses.
// - bcrypt runs one at a time (a flood of wrong passwords costs at most one
//   core; cached users are not held up by it).
//
// Thread-safety: all methods are thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"

namespace fabricpulse::common {

// bcrypt of `password` with `setting` (a hash or "$2b$NN$<salt>") through
// libxcrypt's crypt_rn; nullopt when libxcrypt refuses the setting.
std::optional<std::string> BcryptHash(const std::string& password,
                                      const std::string& setting);

class BasicAuthenticator {
 public:
  static constexpr size_t kCacheEntries = 64;
  static constexpr size_t kMaxPasswordBytes = 1024;

  // (password, setting) -> hash; BcryptHash in production, a counting
  // stand-in in tests.
  using Hasher = std::function<std::optional<std::string>(
      const std::string& password, const std::string& setting)>;

  // `users`: name -> bcrypt hash (as validated by ParseWebConfig).
  explicit BasicAuthenticator(std::map<std::string, std::string> users,
                              Hasher hasher = BcryptHash);

  // Replaces the users (a reloaded web config) and empties the cache.
  void SetUsers(std::map<std::string, std::string> users);

  // True when there is at least one user (otherwise Check is not called:
  // no authentication is configured).
  bool enabled() const;

  // True when `password` is `user`'s. False for an unknown user, a wrong
  // password, a password over kMaxPasswordBytes or holding a NUL byte.
  bool Check(absl::string_view user, absl::string_view password);

  // How many times bcrypt ran (cache misses); for tests and debugging.
  int64_t hashes_computed() const;

 private:
  using Digest = std::array<unsigned char, 32>;
  struct User {
    Digest name_digest;
    std::string hash;
  };

  mutable absl::Mutex mu_;
  std::vector<User> users_ ABSL_GUARDED_BY(mu_);
  std::string dummy_setting_ ABSL_GUARDED_BY(mu_);
  std::vector<Digest> cache_ ABSL_GUARDED_BY(mu_);  // ring, kCacheEntries
  size_t cache_next_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t hashes_ ABSL_GUARDED_BY(mu_) = 0;

  absl::Mutex hash_mu_;  // one bcrypt at a time
  Hasher hasher_;
};

}  // namespace fabricpulse::common
