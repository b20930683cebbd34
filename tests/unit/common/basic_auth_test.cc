#include "daemon/common/basic_auth.h"

#include <crypt.h>

#include <atomic>
#include <thread>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace fabricpulse::common {
namespace {

std::string Hash(const std::string& password, const char* prefix = "$2b$") {
  char setting[CRYPT_GENSALT_OUTPUT_SIZE];
  EXPECT_NE(crypt_gensalt_rn(prefix, 4, nullptr, 0, setting, sizeof(setting)),
            nullptr);
  return BcryptHash(password, setting).value_or("");
}

TEST(BcryptTest, LibxcryptVerifiesEveryAcceptedPrefix) {
  // The classic crypt_blowfish test vector.
  EXPECT_EQ(BcryptHash("U*U",
                       "$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJK"
                       "vyOeW"),
            "$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW");
  for (const char* prefix : {"$2a$", "$2b$", "$2y$"}) {
    const std::string hash = Hash("pw", prefix);
    EXPECT_EQ(hash.substr(0, 4), prefix);
    EXPECT_EQ(BcryptHash("pw", hash), hash);
    EXPECT_NE(BcryptHash("pW", hash), hash);
  }
  EXPECT_FALSE(BcryptHash("pw", "$9$nonsense").has_value());
}

TEST(BasicAuthTest, RightPasswordOnlyWithRealBcrypt) {
  BasicAuthenticator auth(
      {{"alice", Hash("a-pass", "$2y$")}, {"bob", Hash("b-pass")}});
  EXPECT_TRUE(auth.enabled());
  EXPECT_TRUE(auth.Check("alice", "a-pass"));
  EXPECT_TRUE(auth.Check("bob", "b-pass"));
  EXPECT_FALSE(auth.Check("alice", "b-pass"));
  EXPECT_FALSE(auth.Check("alice", ""));
  EXPECT_FALSE(auth.Check("carol", "a-pass"));
  EXPECT_FALSE(auth.Check("", ""));
  EXPECT_FALSE(auth.Check("alice", std::string("a-pass\0x", 8)));
  EXPECT_FALSE(auth.Check("alice", std::string(2000, 'a')));
  EXPECT_FALSE(BasicAuthenticator({}).enabled());
}

// A stand-in hasher: counts calls, "hashes" to setting + password.
struct CountingHasher {
  std::shared_ptr<std::atomic<int>> calls =
      std::make_shared<std::atomic<int>>();
  BasicAuthenticator::Hasher Get() {
    auto c = calls;
    return [c](const std::string& password, const std::string& setting) {
      ++*c;
      return std::optional<std::string>(
          setting.substr(0, 29) +
          std::string(31 - std::min<size_t>(31, password.size()), '.') +
          password.substr(0, 31));
    };
  }
};

std::string FakeHash(const std::string& password) {
  // What CountingHasher computes for `password` with this setting.
  const std::string setting = "$2b$04$abcdefghijklmnopqrstuu";
  return setting.substr(0, 29) +
         std::string(31 - std::min<size_t>(31, password.size()), '.') +
         password.substr(0, 31);
}

TEST(BasicAuthTest, SuccessIsCachedFailureIsNot) {
  CountingHasher hasher;
  BasicAuthenticator auth({{"alice", FakeHash("pw")}}, hasher.Get());
  EXPECT_TRUE(auth.Check("alice", "pw"));
  EXPECT_EQ(*hasher.calls, 1);
  for (int i = 0; i < 10; ++i) EXPECT_TRUE(auth.Check("alice", "pw"));
  EXPECT_EQ(*hasher.calls, 1);  // a scrape every 15 s pays bcrypt once
  EXPECT_EQ(auth.hashes_computed(), 1);
  EXPECT_FALSE(auth.Check("alice", "wrong"));
  EXPECT_FALSE(auth.Check("alice", "wrong"));
  EXPECT_EQ(*hasher.calls, 3);
}

TEST(BasicAuthTest, AnUnknownUserStillPaysOneBcrypt) {
  CountingHasher hasher;
  BasicAuthenticator auth({{"alice", FakeHash("pw")}}, hasher.Get());
  EXPECT_FALSE(auth.Check("mallory", "pw"));
  EXPECT_FALSE(auth.Check("mallory", "pw"));  // never cached
  EXPECT_EQ(*hasher.calls, 2);
  // Even a password that would match the dummy setting's output fails.
  EXPECT_FALSE(auth.Check("mallory", ""));
}

TEST(BasicAuthTest, TheCacheIsBounded) {
  CountingHasher hasher;
  std::map<std::string, std::string> users;
  const int n = static_cast<int>(BasicAuthenticator::kCacheEntries) + 1;
  for (int i = 0; i < n; ++i) {
    users[absl::StrCat("u", i)] = FakeHash(absl::StrCat("p", i));
  }
  BasicAuthenticator auth(users, hasher.Get());
  for (int i = 0; i < n; ++i) {
    EXPECT_TRUE(auth.Check(absl::StrCat("u", i), absl::StrCat("p", i)));
  }
  EXPECT_EQ(*hasher.calls, n);
  // The newest 64 are cached; the first was dropped.
  EXPECT_TRUE(auth.Check(absl::StrCat("u", n - 1), absl::StrCat("p", n - 1)));
  EXPECT_EQ(*hasher.calls, n);
  EXPECT_TRUE(auth.Check("u0", "p0"));
  EXPECT_EQ(*hasher.calls, n + 1);
}

TEST(BasicAuthTest, NewUsersEmptyTheCacheAndAnOldPasswordStopsWorking) {
  CountingHasher hasher;
  BasicAuthenticator auth({{"alice", FakeHash("old")}}, hasher.Get());
  EXPECT_TRUE(auth.Check("alice", "old"));
  auth.SetUsers({{"alice", FakeHash("new")}});
  EXPECT_FALSE(auth.Check("alice", "old"));
  EXPECT_TRUE(auth.Check("alice", "new"));
  auth.SetUsers({{"bob", FakeHash("new")}});
  EXPECT_FALSE(auth.Check("alice", "new"));
}

TEST(BasicAuthTest, ConcurrentChecksAgree) {
  BasicAuthenticator auth({{"alice", Hash("pw")}});
  std::atomic<int> good{0}, bad{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 5; ++i) {
        (auth.Check("alice", t % 2 ? "pw" : "no") ? good : bad)++;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(good, 20);
  EXPECT_EQ(bad, 20);
}

}  // namespace
}  // namespace fabricpulse::common
