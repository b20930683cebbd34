#include "daemon/common/basic_auth.h"

#include <crypt.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <algorithm>
#include <memory>

#include "absl/strings/str_cat.h"

namespace fabricpulse::common {
namespace {

using Digest = std::array<unsigned char, 32>;

// SHA-256 over length-prefixed parts, so that ("ab","c") and ("a","bc")
// differ.
Digest Sha256(std::initializer_list<absl::string_view> parts) {
  Digest out{};
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(),
                                                              EVP_MD_CTX_free);
  EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr);
  for (absl::string_view part : parts) {
    const uint64_t size = part.size();
    EVP_DigestUpdate(ctx.get(), &size, sizeof(size));
    EVP_DigestUpdate(ctx.get(), part.data(), part.size());
  }
  unsigned int n = 0;
  EVP_DigestFinal_ex(ctx.get(), out.data(), &n);
  return out;
}

int CostOf(const std::string& hash) {
  return (hash[4] - '0') * 10 + (hash[5] - '0');
}

}  // namespace

std::optional<std::string> BcryptHash(const std::string& password,
                                      const std::string& setting) {
  auto data = std::make_unique<crypt_data>();
  const char* out = crypt_rn(password.c_str(), setting.c_str(), data.get(),
                             sizeof(crypt_data));
  if (out == nullptr || out[0] == '*') return std::nullopt;
  return std::string(out);
}

BasicAuthenticator::BasicAuthenticator(std::map<std::string, std::string> users,
                                       Hasher hasher)
    : hasher_(std::move(hasher)) {
  SetUsers(std::move(users));
}

void BasicAuthenticator::SetUsers(std::map<std::string, std::string> users) {
  std::vector<User> list;
  int cost = 0;
  for (const auto& [name, hash] : users) {
    list.push_back({Sha256({name}), hash});
    if (hash.size() >= 6) cost = std::max(cost, CostOf(hash));
  }
  if (cost == 0) cost = 10;
  absl::MutexLock lock(&mu_);
  users_ = std::move(list);
  // Any valid salt will do: the result is never compared with anything
  // that could match.
  dummy_setting_ = absl::StrCat("$2b$", cost < 10 ? "0" : "", cost,
                                "$abcdefghijklmnopqrstuu");
  cache_.assign(kCacheEntries, Digest{});
  cache_next_ = 0;
}

bool BasicAuthenticator::enabled() const {
  absl::MutexLock lock(&mu_);
  return !users_.empty();
}

bool BasicAuthenticator::Check(absl::string_view user,
                               absl::string_view password) {
  if (password.size() > kMaxPasswordBytes ||
      password.find('\0') != absl::string_view::npos) {
    return false;
  }
  const Digest name = Sha256({user});
  std::string hash;
  bool known = false;
  Digest key;
  {
    absl::MutexLock lock(&mu_);
    // Every entry is compared, without an early exit, so the time does not
    // depend on where (or whether) the user is in the list.
    size_t index = 0;
    size_t found = 0;
    for (size_t i = 0; i < users_.size(); ++i) {
      const size_t equal = CRYPTO_memcmp(users_[i].name_digest.data(),
                                         name.data(), name.size()) == 0;
      const size_t mask = static_cast<size_t>(0) - equal;
      index = (index & ~mask) | (i & mask);
      found |= equal;
    }
    known = found != 0;
    hash = known ? users_[index].hash : dummy_setting_;
    key = Sha256({user, password, hash});
    if (known) {
      for (const Digest& cached : cache_) {
        if (CRYPTO_memcmp(cached.data(), key.data(), key.size()) == 0) {
          return true;
        }
      }
    }
  }
  std::optional<std::string> computed;
  {
    absl::MutexLock lock(&hash_mu_);
    computed = hasher_(std::string(password), hash);
  }
  const bool ok =
      known && computed.has_value() && computed->size() == hash.size() &&
      CRYPTO_memcmp(computed->data(), hash.data(), hash.size()) == 0;
  absl::MutexLock lock(&mu_);
  ++hashes_;
  if (ok) {
    cache_[cache_next_] = key;
    cache_next_ = (cache_next_ + 1) % kCacheEntries;
  }
  return ok;
}

int64_t BasicAuthenticator::hashes_computed() const {
  absl::MutexLock lock(&mu_);
  return hashes_;
}

}  // namespace fabricpulse::common
