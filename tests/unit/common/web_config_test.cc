#include "daemon/common/web_config.h"

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace fabricpulse::common {
namespace {

constexpr char kHash[] =
    "$2y$10$X0h1gDsPszWURQaxFh.zoubFi6DXncSjhoQNJgRrnGs7EsimhC7zG";

void ExpectError(const std::string& yaml,
                 const std::vector<std::string>& wanted) {
  auto parsed = ParseWebConfig(yaml);
  ASSERT_FALSE(parsed.ok()) << yaml;
  EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
  for (const std::string& w : wanted) {
    EXPECT_TRUE(absl::StrContains(parsed.status().message(), w))
        << "'" << w << "' not in: " << parsed.status().message();
  }
}

TEST(WebConfigTest, EmptyFileMeansNoTlsAndNoAuth) {
  for (const char* yaml : {"", "tls_server_config:\n",
                           "tls_server_config: {}\n", "basic_auth_users:\n"}) {
    auto parsed = ParseWebConfig(yaml);
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_FALSE(parsed->tls.has_value()) << yaml;
    EXPECT_TRUE(parsed->basic_auth_users.empty());
  }
}

TEST(WebConfigTest, ParsesTheSupportedSubset) {
  auto parsed = ParseWebConfig(
      absl::StrCat(
          "tls_server_config:\n"
          "  cert_file: server.crt\n"
          "  key_file: /etc/tls/server.key\n"
          "  client_auth_type: RequireAndVerifyClientCert\n"
          "  client_ca_file: ca.crt\n"
          "  min_version: TLS13\n"
          "  max_version: TLS13\n"
          "basic_auth_users:\n"
          "  alice: ",
          kHash,
          "\n"
          "  bob: "
          "'$2b$04$0.G/nNkD60sjCjLYc9vc1OuUWFyutUEv08LVPDIsNAIA7uRftuCuy'\n"),
      "/etc/fabricpulse");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  ASSERT_TRUE(parsed->tls.has_value());
  EXPECT_EQ(parsed->tls->cert_file, "/etc/fabricpulse/server.crt");
  EXPECT_EQ(parsed->tls->key_file, "/etc/tls/server.key");
  EXPECT_EQ(parsed->tls->client_ca_file, "/etc/fabricpulse/ca.crt");
  EXPECT_EQ(parsed->tls->client_auth,
            ClientAuthType::kRequireAndVerifyClientCert);
  EXPECT_EQ(parsed->tls->min_version, TlsVersion::kTls13);
  EXPECT_EQ(parsed->basic_auth_users.size(), 2u);
  EXPECT_EQ(parsed->basic_auth_users.at("alice"), kHash);
}

TEST(WebConfigTest, EveryClientAuthTypeOfExporterToolkit) {
  for (const char* type :
       {"NoClientCert", "RequestClientCert", "RequireAnyClientCert",
        "VerifyClientCertIfGiven", "RequireAndVerifyClientCert"}) {
    const bool no_ca = std::string(type) == "NoClientCert";
    auto parsed = ParseWebConfig(
        absl::StrCat("tls_server_config:\n  cert_file: c\n  key_file: k\n"
                     "  client_auth_type: ",
                     type, "\n", no_ca ? "" : "  client_ca_file: ca\n"));
    EXPECT_TRUE(parsed.ok()) << type << ": " << parsed.status();
  }
  ExpectError(
      "tls_server_config:\n  cert_file: c\n  key_file: k\n"
      "  client_auth_type: RequireClientCerts\n",
      {"config line 4", "tls_server_config.client_auth_type",
       "RequireAndVerifyClientCert"});
}

TEST(WebConfigTest, UnknownKeysAreRefusedNamingTheKeyAndTheAllowedOnes) {
  ExpectError("tls_server_config:\n  cert_file: c\n  key_file: k\n  kee: x\n",
              {"config line 4", "tls_server_config.kee", "unknown key",
               "allowed:", "client_auth_type"});
  ExpectError("basic_auth: {}\n", {"config line 1", "basic_auth", "unknown key",
                                   "basic_auth_users"});
  ExpectError("- a\n- b\n", {"must be a map"});
  ExpectError("tls_server_config: [a]\n", {"tls_server_config"});
}

TEST(WebConfigTest, KnownButUnsupportedKeysSaySo) {
  for (const char* key :
       {"cipher_suites: [x]", "curve_preferences: [x]",
        "prefer_server_cipher_suites: true", "client_allowed_sans: [x]",
        "cert: x", "key: x", "client_ca: x"}) {
    ExpectError(absl::StrCat("tls_server_config:\n  cert_file: c\n"
                             "  key_file: k\n  ",
                             key, "\n"),
                {"not supported"});
  }
  ExpectError("http_server_config:\n  headers: {}\n",
              {"http_server_config", "not supported"});
  ExpectError("rate_limit:\n  burst: 1\n", {"rate_limit", "not supported"});
}

TEST(WebConfigTest, TlsNeedsACertificateAndAKey) {
  ExpectError("tls_server_config:\n  cert_file: c\n",
              {"tls_server_config", "key_file"});
  ExpectError("tls_server_config:\n  client_auth_type: NoClientCert\n",
              {"cert_file"});
  ExpectError("tls_server_config:\n  cert_file: ''\n  key_file: k\n",
              {"tls_server_config.cert_file", "empty"});
}

TEST(WebConfigTest, ClientCaAndClientAuthTypeMustAgree) {
  ExpectError(
      "tls_server_config:\n  cert_file: c\n  key_file: k\n"
      "  client_auth_type: VerifyClientCertIfGiven\n",
      {"client_auth_type", "need client_ca_file"});
  ExpectError(
      "tls_server_config:\n  cert_file: c\n  key_file: k\n"
      "  client_ca_file: ca\n",
      {"tls_server_config.client_ca_file", "RequireAndVerifyClientCert"});
}

TEST(WebConfigTest, OnlyTls12AndTls13) {
  ExpectError(
      "tls_server_config:\n  cert_file: c\n  key_file: k\n"
      "  min_version: TLS10\n",
      {"tls_server_config.min_version", "TLS10", "allowed: TLS12, TLS13"});
  ExpectError(
      "tls_server_config:\n  cert_file: c\n  key_file: k\n"
      "  max_version: SSL3\n",
      {"tls_server_config.max_version", "allowed: TLS12, TLS13"});
  ExpectError(
      "tls_server_config:\n  cert_file: c\n  key_file: k\n"
      "  min_version: TLS13\n  max_version: TLS12\n",
      {"min_version", "max_version"});
}

TEST(WebConfigTest, OnlyBcryptHashesAndTheyAreNeverEchoed) {
  ExpectError(
      "basic_auth_users:\n  alice: hunter2\n",
      {"config line 2", "basic_auth_users.alice", "not a bcrypt hash", "$2y$"});
  EXPECT_FALSE(
      absl::StrContains(ParseWebConfig("basic_auth_users:\n  alice: hunter2\n")
                            .status()
                            .message(),
                        "hunter2"));
  // SHA-crypt, MD5-crypt and a bcrypt of an out-of-range cost are refused.
  for (const std::string hash :
       {"$6$salt$abcdefghijklmnopqrstuvwxyz", "$1$salt$abcdefghijklmnopqrstuv",
        "$2y$03$X0h1gDsPszWURQaxFh.zoubFi6DXncSjhoQNJgRrnGs7EsimhC7zG",
        "$2x$10$X0h1gDsPszWURQaxFh.zoubFi6DXncSjhoQNJgRrnGs7EsimhC7zG",
        "$2y$10$X0h1gDsPszWURQaxFh.zoubFi6DXncSjhoQNJgRrnGs7EsimhC7z",
        "$2y$10$X0h1gDsPszWURQaxFh.zoubFi6DXncSjhoQNJgRrnGs7EsimhC7z!"}) {
    EXPECT_FALSE(IsBcryptHash(hash)) << hash;
  }
  EXPECT_TRUE(IsBcryptHash(kHash));
  ExpectError("basic_auth_users:\n  alice: [a]\n", {"basic_auth_users.alice"});
}

TEST(WebConfigTest, UserNamesAreBounded) {
  ExpectError(absl::StrCat("basic_auth_users:\n  'a:b': ", kHash, "\n"),
              {"invalid user name", "no ':'"});
  ExpectError(absl::StrCat("basic_auth_users:\n  ", std::string(300, 'u'), ": ",
                           kHash, "\n"),
              {"invalid user name", "256"});
  std::string many = "basic_auth_users:\n";
  for (int i = 0; i <= kMaxBasicAuthUsers; ++i) {
    absl::StrAppend(&many, "  u", i, ": ", kHash, "\n");
  }
  ExpectError(many, {"65 users", "at most 64"});
  ExpectError(
      absl::StrCat("basic_auth_users:\n  a: ", kHash, "\n  a: ", kHash, "\n"),
      {"duplicate key"});
}

class WebConfigFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/fp-web-config-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  std::string dir_;
};

TEST_F(WebConfigFileTest, RelativeFilesAreTakenFromTheConfigFolder) {
  const std::string path = dir_ + "/web.yml";
  std::ofstream(path) << "tls_server_config:\n  cert_file: tls/c.pem\n"
                         "  key_file: tls/k.pem\n";
  auto loaded = LoadWebConfigFile(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->tls->cert_file, dir_ + "/tls/c.pem");
}

TEST_F(WebConfigFileTest, ErrorsNameTheFlagAndTheFile) {
  const std::string path = dir_ + "/web.yml";
  std::ofstream(path) << "nope: 1\n";
  auto loaded = LoadWebConfigFile(path);
  ASSERT_FALSE(loaded.ok());
  EXPECT_TRUE(absl::StartsWith(loaded.status().message(),
                               absl::StrCat("--web-config-file ", path, ": ")))
      << loaded.status();
  auto missing = LoadWebConfigFile(dir_ + "/absent.yml");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  auto directory = LoadWebConfigFile(dir_);
  EXPECT_EQ(directory.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(
      absl::StrContains(directory.status().message(), "not a regular file"));
}

TEST_F(WebConfigFileTest, AFifoIsRefusedWithoutBlockingAndSizeIsBounded) {
  const std::string fifo = dir_ + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  auto loaded = LoadWebConfigFile(fifo);
  EXPECT_TRUE(
      absl::StrContains(loaded.status().message(), "not a regular file"))
      << loaded.status();
  const std::string big = dir_ + "/big.yml";
  std::ofstream(big) << "# " << std::string(kMaxWebConfigBytes, 'x') << "\n";
  auto too_big = LoadWebConfigFile(big);
  EXPECT_TRUE(absl::StrContains(too_big.status().message(), "65536"))
      << too_big.status();
}

}  // namespace
}  // namespace fabricpulse::common
