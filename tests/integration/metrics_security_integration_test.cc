// The daemons' /metrics web config (TLS, mutual TLS, basic auth) and their
// slow-client bounds, on real coordinator and agent processes (issue 13,
// item 4; grpc.health.v1 is in health_integration_test.cc).
#include <crypt.h>

#include <fstream>
#include <memory>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "daemon/common/basic_auth.h"
#include "daemon/common/metrics_server.h"
#include "daemon/common/process.h"
#include "gtest/gtest.h"
#include "tests/integration/daemon_launch.h"
#include "tests/integration/http_client.h"
#include "tests/integration/test_pki.h"
#include "tests/integration/test_support.h"

namespace fabricpulse::testing {
namespace {

// A bcrypt hash of `password` (cost 4: fast tests; any cost works).
std::string Hash(const std::string& password, const char* prefix = "$2y$") {
  char setting[CRYPT_GENSALT_OUTPUT_SIZE];
  EXPECT_NE(crypt_gensalt_rn(prefix, 4, nullptr, 0, setting, sizeof(setting)),
            nullptr);
  auto hash = common::BcryptHash(password, setting);
  EXPECT_TRUE(hash.has_value());
  return hash.value_or("");
}

// Runs the coordinator with `web_config` and expects it to stop at start:
// exit 2, nothing listening, and a message holding every one of `wanted`.
void ExpectRefusedAtStart(const std::string& dir, const std::string& web_config,
                          const std::vector<std::string>& wanted) {
  const std::string file = WriteFile(dir, "web.yml", web_config);
  std::vector<std::string> argv = CoordinatorArgs(dir);
  argv.insert(argv.end(), {"--web-config-file", file});
  const std::string log = dir + "/refused.log";
  std::remove(log.c_str());
  common::SpawnOptions spawn;
  spawn.argv = argv;
  spawn.log_file = log;
  auto pid = common::Spawn(spawn);
  ASSERT_TRUE(pid.ok());
  auto exit = common::WaitForExit(*pid, absl::Seconds(20));
  ASSERT_TRUE(exit.has_value()) << "still running with " << web_config;
  EXPECT_EQ(exit->exit_code, 2);
  const std::string text = ReadFile(log);
  EXPECT_TRUE(absl::StrContains(text, file)) << text;
  for (const std::string& w : wanted) {
    EXPECT_TRUE(absl::StrContains(text, w)) << "'" << w << "' not in: " << text;
  }
  EXPECT_FALSE(std::ifstream(dir + "/coord.ports").good());
}

TEST(MetricsWebConfigTest, WithoutAWebConfigMetricsAreServedAsBefore) {
  const std::string dir = TempDir();
  auto coordinator = StartCoordinator(dir);
  ASSERT_NE(coordinator, nullptr);
  auto response = HttpGet(coordinator->ports.metrics);
  ASSERT_TRUE(response.ok()) << response.status();
  EXPECT_EQ(response->status, 200);
  EXPECT_TRUE(absl::StrContains(response->body, "fabricpulse_build_info"));
  // No health listener unless asked for: the port file keeps two lines.
  EXPECT_TRUE(coordinator->ports.health.empty());
  EXPECT_FALSE(absl::StrContains(ReadFile(dir + "/coord.ports"), "health="));
}

TEST(MetricsWebConfigTest, BasicAuthRefusesMissingAndWrongCredentials) {
  const std::string dir = TempDir();
  const std::string web = WriteFile(
      dir, "web.yml",
      absl::StrCat("basic_auth_users:\n  prometheus: ", Hash("s3cret"),
                   "\n  other: ", Hash("other-pass", "$2b$"), "\n"));
  auto coordinator = StartCoordinator(dir, {"--web-config-file", web});
  ASSERT_NE(coordinator, nullptr);
  const std::string& address = coordinator->ports.metrics;

  auto none = HttpGet(address);
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_EQ(none->status, 401);
  EXPECT_TRUE(absl::StrContains(none->head, "WWW-Authenticate: Basic"))
      << none->head;
  EXPECT_FALSE(absl::StrContains(none->body, "fabricpulse_build_info"));

  HttpGetOptions wrong;
  wrong.basic_auth = true;
  wrong.user = "prometheus";
  wrong.password = "s3cret!";
  auto bad = HttpGet(address, wrong);
  ASSERT_TRUE(bad.ok()) << bad.status();
  EXPECT_EQ(bad->status, 401);

  HttpGetOptions unknown = wrong;
  unknown.user = "mallory";
  unknown.password = "s3cret";
  auto stranger = HttpGet(address, unknown);
  ASSERT_TRUE(stranger.ok()) << stranger.status();
  EXPECT_EQ(stranger->status, 401);

  HttpGetOptions right = wrong;
  right.password = "s3cret";
  for (int i = 0; i < 3; ++i) {  // the later ones come from the cache
    auto ok = HttpGet(address, right);
    ASSERT_TRUE(ok.ok()) << ok.status();
    EXPECT_EQ(ok->status, 200);
    EXPECT_TRUE(absl::StrContains(ok->body, "fabricpulse_build_info"));
  }
  HttpGetOptions second = right;
  second.user = "other";
  second.password = "other-pass";
  auto other = HttpGet(address, second);
  ASSERT_TRUE(other.ok()) << other.status();
  EXPECT_EQ(other->status, 200);
}

// A coordinator serving /metrics over TLS with the test PKI's server
// certificate (relative names: taken from the web config's folder).
std::unique_ptr<Daemon> StartTlsCoordinator(const std::string& dir) {
  const std::string web = WriteFile(dir, "web.yml",
                                    "tls_server_config:\n"
                                    "  cert_file: server.pem\n"
                                    "  key_file: server.key\n");
  return StartCoordinator(dir, {"--web-config-file", web});
}

TEST(MetricsWebConfigTest, TlsServesTheCaVerifiedScrapeAndRefusesPlaintext) {
  const std::string dir = TempDir();
  auto pki = MakeTestPki(dir);
  ASSERT_TRUE(pki.ok()) << pki.status();
  auto coordinator = StartTlsCoordinator(dir);
  ASSERT_NE(coordinator, nullptr);
  const std::string& address = coordinator->ports.metrics;

  HttpGetOptions tls;
  tls.tls = true;
  tls.ca_file = pki->ca_cert;
  auto ok = HttpGet(address, tls);
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ(ok->status, 200);
  EXPECT_TRUE(absl::StrContains(ok->body, "fabricpulse_build_info"));

  // Plain HTTP to the TLS port gets no HTTP answer.
  auto plain = HttpGet(address);
  EXPECT_FALSE(plain.ok() && plain->status == 200);

  // A client that trusts another CA refuses the server.
  HttpGetOptions other = tls;
  other.ca_file = pki->other_ca_cert;
  auto refused = HttpGet(address, other);
  EXPECT_FALSE(refused.ok());
  EXPECT_TRUE(absl::StrContains(refused.status().message(), "handshake"))
      << refused.status();

  // The server survived all of that.
  auto again = HttpGet(address, tls);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->status, 200);
}

TEST(MetricsWebConfigTest, RequireAndVerifyClientCertRefusesOtherClients) {
  const std::string dir = TempDir();
  auto pki = MakeTestPki(dir);
  ASSERT_TRUE(pki.ok()) << pki.status();
  const std::string web = WriteFile(
      dir, "web.yml",
      absl::StrCat("tls_server_config:\n"
                   "  cert_file: ",
                   pki->server_cert, "\n", "  key_file: ", pki->server_key,
                   "\n", "  client_auth_type: RequireAndVerifyClientCert\n",
                   "  client_ca_file: ", pki->ca_cert, "\n",
                   "basic_auth_users:\n  prometheus: ", Hash("pw"), "\n"));
  auto coordinator = StartCoordinator(dir, {"--web-config-file", web});
  ASSERT_NE(coordinator, nullptr);
  const std::string& address = coordinator->ports.metrics;

  HttpGetOptions client;
  client.tls = true;
  client.ca_file = pki->ca_cert;
  client.cert_file = pki->client_cert;
  client.key_file = pki->client_key;
  client.basic_auth = true;
  client.user = "prometheus";
  client.password = "pw";
  auto ok = HttpGet(address, client);
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ(ok->status, 200);

  // TLS and basic auth both apply: the certificate alone is not enough.
  HttpGetOptions no_password = client;
  no_password.basic_auth = false;
  auto unauthorized = HttpGet(address, no_password);
  ASSERT_TRUE(unauthorized.ok()) << unauthorized.status();
  EXPECT_EQ(unauthorized->status, 401);

  HttpGetOptions no_cert = client;
  no_cert.cert_file.clear();
  no_cert.key_file.clear();
  auto anonymous = HttpGet(address, no_cert);
  EXPECT_FALSE(anonymous.ok() && anonymous->status == 200) << anonymous->status;

  HttpGetOptions rogue = client;
  rogue.cert_file = pki->rogue_client_cert;
  rogue.key_file = pki->rogue_client_key;
  auto forged = HttpGet(address, rogue);
  EXPECT_FALSE(forged.ok() && forged->status == 200) << forged->status;

  auto again = HttpGet(address, client);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->status, 200);
}

TEST(MetricsWebConfigTest, ARotatedCertificateIsServedWithoutARestart) {
  const std::string dir = TempDir();
  auto pki = MakeTestPki(dir, "first");
  ASSERT_TRUE(pki.ok()) << pki.status();
  const std::string web = WriteFile(dir, "web.yml",
                                    "tls_server_config:\n"
                                    "  cert_file: server.pem\n"
                                    "  key_file: server.key\n");
  auto coordinator = StartCoordinator(dir, {"--web-config-file", web});
  ASSERT_NE(coordinator, nullptr);
  const std::string& address = coordinator->ports.metrics;
  auto before = PresentedCommonName(address);
  ASSERT_TRUE(before.ok()) << before.status();
  EXPECT_EQ(*before, "first");

  // As a secret volume would: new files renamed over the old, the
  // certificate first (for a moment it does not match the key).
  ASSERT_TRUE(
      IssueServerCert(*pki, dir, "second", dir + "/new.pem", dir + "/new.key")
          .ok());
  ASSERT_EQ(std::rename((dir + "/new.pem").c_str(), pki->server_cert.c_str()),
            0);
  ASSERT_EQ(std::rename((dir + "/new.key").c_str(), pki->server_key.c_str()),
            0);
  EXPECT_TRUE(Eventually(
      [&] {
        auto cn = PresentedCommonName(address);
        return cn.ok() && *cn == "second";
      },
      absl::Seconds(10)))
      << ReadFile(coordinator->log);
  HttpGetOptions tls;
  tls.tls = true;
  tls.ca_file = pki->ca_cert;
  auto ok = HttpGet(address, tls);
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ(ok->status, 200);
  EXPECT_TRUE(absl::StrContains(ReadFile(coordinator->log),
                                "TLS certificate reloaded"));
}

TEST(MetricsWebConfigTest, ABadWebConfigStopsTheStartNamingTheKey) {
  const std::string dir = TempDir();
  ExpectRefusedAtStart(dir, "tls_server_config:\n  cert_fil: a.pem\n",
                       {"config line 2", "tls_server_config.cert_fil",
                        "unknown key", "allowed:", "cert_file"});
  ExpectRefusedAtStart(dir, "basic_auth_users:\n  prometheus: hunter2\n",
                       {"basic_auth_users.prometheus", "not a bcrypt hash"});
  // The clear-text password is never echoed.
  EXPECT_FALSE(absl::StrContains(ReadFile(dir + "/refused.log"), "hunter2"));
  ExpectRefusedAtStart(
      dir,
      "tls_server_config:\n  cert_file: a.pem\n  key_file: a.key\n"
      "  cipher_suites: [TLS_AES_128_GCM_SHA256]\n",
      {"tls_server_config.cipher_suites", "not supported"});
  ExpectRefusedAtStart(dir,
                       "tls_server_config:\n  cert_file: missing.pem\n"
                       "  key_file: missing.key\n",
                       {"tls_server_config.cert_file", "missing.pem"});
  ExpectRefusedAtStart(
      dir,
      "tls_server_config:\n  cert_file: a.pem\n  key_file: a.key\n"
      "  client_auth_type: RequireAndVerifyClientCert\n",
      {"tls_server_config.client_auth_type", "client_ca_file"});
  ExpectRefusedAtStart(dir, "http_server_config:\n  http2: false\n",
                       {"http_server_config", "not supported"});
}

// Opens `count` connections to each address, each sending `prefix` (half
// a request head, or nothing) and then stalling.
std::vector<StalledConnection> Stall(const std::vector<std::string>& addresses,
                                     int count, const std::string& prefix) {
  std::vector<StalledConnection> slow;
  for (const std::string& address : addresses) {
    for (int i = 0; i < count; ++i) {
      auto c = StalledConnection::Open(address, prefix);
      EXPECT_TRUE(c.ok()) << c.status();
      if (c.ok()) slow.push_back(*std::move(c));
    }
  }
  return slow;
}

// A scrape of `address` is answered 200 within a second.
void ExpectPromptScrape(const std::string& address, HttpGetOptions options) {
  const absl::Time start = absl::Now();
  options.timeout = absl::Seconds(2);
  auto scrape = HttpGet(address, options);
  ASSERT_TRUE(scrape.ok()) << address << ": " << scrape.status();
  EXPECT_EQ(scrape->status, 200);
  EXPECT_LT(absl::Now() - start, absl::Seconds(1)) << address;
}

// Each stalled connection is closed by the server at its request timeout,
// counted from when it was opened, and not much before.
void ExpectCutAtTheTimeout(std::vector<StalledConnection>& slow,
                           absl::Time opened) {
  const absl::Duration limit =
      common::kMetricsRequestTimeout + absl::Seconds(3);
  for (StalledConnection& c : slow) {
    EXPECT_TRUE(c.WaitClosedByServer(opened + limit - absl::Now()));
  }
  const absl::Duration took = absl::Now() - opened;
  EXPECT_GE(took, common::kMetricsRequestTimeout - absl::Milliseconds(500));
  EXPECT_LT(took, limit);
}

TEST(MetricsBoundsTest, SlowClientsDoNotStarveAScrapeAndAreCutAtTheTimeout) {
  const std::string dir = TempDir();
  auto coordinator = StartCoordinator(dir);
  ASSERT_NE(coordinator, nullptr);
  auto agent = StartAgent(dir, coordinator->ports.grpc);
  ASSERT_NE(agent, nullptr);
  // 256 connections per daemon, each with half a request head, then
  // silence (the thread-per-connection server this replaced answered 0 of
  // 12 scrapes under 64 such connections).
  const absl::Time opened = absl::Now();
  std::vector<StalledConnection> slow =
      Stall({coordinator->ports.metrics, agent->ports.metrics}, 256,
            "GET /metrics HTTP/1.1\r\nHost: x\r\nUser-Agent: sl");
  ASSERT_EQ(slow.size(), 512u);
  for (const std::string& address :
       {coordinator->ports.metrics, agent->ports.metrics}) {
    ExpectPromptScrape(address, {});
  }
  ExpectCutAtTheTimeout(slow, opened);
}

TEST(MetricsBoundsTest, SilentClientsDoNotStarveATlsScrape) {
  const std::string dir = TempDir();
  auto pki = MakeTestPki(dir);
  ASSERT_TRUE(pki.ok()) << pki.status();
  auto coordinator = StartTlsCoordinator(dir);
  ASSERT_NE(coordinator, nullptr);
  // 256 connections that never start their TLS handshake.
  const absl::Time opened = absl::Now();
  std::vector<StalledConnection> slow =
      Stall({coordinator->ports.metrics}, 256, "");
  ASSERT_EQ(slow.size(), 256u);
  HttpGetOptions tls;
  tls.tls = true;
  tls.ca_file = pki->ca_cert;
  ExpectPromptScrape(coordinator->ports.metrics, tls);
  ExpectCutAtTheTimeout(slow, opened);
}

TEST(MetricsBoundsTest, BeyondTheConnectionBoundTheOldestStalledOneIsClosed) {
  const std::string dir = TempDir();
  auto coordinator = StartCoordinator(dir);
  ASSERT_NE(coordinator, nullptr);
  const absl::Time opened = absl::Now();
  std::vector<StalledConnection> slow = Stall(
      {coordinator->ports.metrics}, common::kMetricsMaxConnections, "GET /m");
  ASSERT_EQ(slow.size(), static_cast<size_t>(common::kMetricsMaxConnections));
  // The bound is reached: the scrape's connection closes the oldest.
  ExpectPromptScrape(coordinator->ports.metrics, {});
  EXPECT_TRUE(slow.front().WaitClosedByServer(absl::Seconds(1)));
  EXPECT_LT(absl::Now() - opened, common::kMetricsRequestTimeout);
  // The newest is still open, until its own timeout.
  EXPECT_FALSE(slow.back().WaitClosedByServer(absl::Milliseconds(100)));
}

}  // namespace
}  // namespace fabricpulse::testing
