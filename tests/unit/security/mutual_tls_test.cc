// Real TLS servers and clients on 127.0.0.1:0: who gets in, who is refused,
// and certificates rotated under a running server.
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "daemon/security/authorizer.h"
#include "daemon/security/caller.h"
#include "daemon/security/cert_authority.h"
#include "daemon/security/cert_set.h"
#include "daemon/security/credentials.h"
#include "fabricpulse/v1/coordinator.grpc.pb.h"
#include "grpcpp/grpcpp.h"
#include "grpcpp/security/tls_credentials_options.h"
#include "gtest/gtest.h"

namespace fabricpulse::security {
namespace {
namespace FP_UNITY_ID {

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string TempDir() {
  char dir[] = "/tmp/fabricpulse-tls-test-XXXXXX";
  EXPECT_NE(mkdtemp(dir), nullptr);
  return dir;
}

bool Eventually(const std::function<bool()>& f, absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  while (absl::Now() < deadline) {
    if (f()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return f();
}

// Register answers with the caller the handler sees (and counts the
// properties of the connection's AuthContext); Stats answers OK; the other
// methods are unimplemented (so reaching them is UNIMPLEMENTED).
class EchoService final : public v1::CoordinatorService::Service {
 public:
  grpc::Status Register(grpc::ServerContext* context,
                        const v1::RegisterRequest*,
                        v1::RegisterResponse* response) override {
    response->set_agent_id(CallerDescription(*context));
    int properties = 0;
    for (auto it = context->auth_context()->begin();
         it != context->auth_context()->end(); ++it) {
      properties++;
    }
    response->set_membership_epoch(properties);
    return grpc::Status::OK;
  }
  grpc::Status Stats(grpc::ServerContext*, const v1::CoordinatorStatsRequest*,
                     v1::CoordinatorStatsResponse*) override {
    return grpc::Status::OK;
  }
};

class MutualTlsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = TempDir();
    auto set = CertSet::Create(dir_ + "/pki", "fabricpulse", absl::Hours(24));
    ASSERT_TRUE(set.ok()) << set.status();
    set_ = *std::move(set);
  }
  void TearDown() override {
    if (server_) server_->Shutdown(absl::ToChronoTime(absl::Now()));
    std::filesystem::remove_all(dir_);
  }

  std::shared_ptr<Credentials> Issue(CertSet& set, Role role,
                                     const std::string& name) {
    auto options = set.Issue({role, name}, {"localhost"}, {"127.0.0.1"});
    EXPECT_TRUE(options.ok()) << options.status();
    options->refresh = absl::Seconds(1);
    auto creds = Credentials::Create(*options);
    EXPECT_TRUE(creds.ok()) << creds.status();
    return creds.ok() ? *creds : nullptr;
  }

  void StartServer(std::shared_ptr<Credentials> creds) {
    server_creds_ = creds;
    auto authorizer = std::make_shared<Authorizer>(
        "fabricpulse",
        PolicySource::BuiltIn(Service::kCoordinator, "fabricpulse"));
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", creds->Server(authorizer), &port_);
    builder.RegisterService(&service_);
    server_ = builder.BuildAndStart();
    ASSERT_NE(server_, nullptr);
  }

  std::unique_ptr<v1::CoordinatorService::Stub> Stub(
      const std::shared_ptr<Credentials>& client,
      PeerExpectation peer = {Role::kCoordinator, ""}) {
    return v1::CoordinatorService::NewStub(grpc::CreateChannel(
        absl::StrCat("127.0.0.1:", port_), client->Channel(peer)));
  }

  // `properties`: how many the connection's AuthContext holds.
  static grpc::Status Register(v1::CoordinatorService::Stub& stub,
                               std::string* caller = nullptr,
                               uint64_t* properties = nullptr) {
    grpc::ClientContext ctx;
    ctx.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(5)));
    v1::RegisterRequest req;
    v1::RegisterResponse resp;
    grpc::Status status = stub.Register(&ctx, req, &resp);
    if (caller) *caller = resp.agent_id();
    if (properties) *properties = resp.membership_epoch();
    return status;
  }
  // A stub over a plain gRPC TLS channel (no FabricPulse verifier, which
  // would refuse odd client certificates before the server sees them).
  std::unique_ptr<v1::CoordinatorService::Stub> RawStub(
      const std::string& cert_file, const std::string& key_file,
      const std::string& ca_file) {
    grpc::experimental::TlsChannelCredentialsOptions raw;
    raw.set_certificate_provider(
        std::make_shared<grpc::experimental::FileWatcherCertificateProvider>(
            key_file, cert_file, ca_file, 1));
    raw.watch_root_certs();
    raw.watch_identity_key_cert_pairs();
    raw.set_check_call_host(false);
    return v1::CoordinatorService::NewStub(
        grpc::CreateChannel(absl::StrCat("127.0.0.1:", port_),
                            grpc::experimental::TlsCredentials(raw)));
  }
  // A certificate of this set's CA with exactly these URI SANs.
  std::unique_ptr<v1::CoordinatorService::Stub> StubWithUris(
      const std::string& tag, const std::vector<std::string>& uris) {
    KeyAndCertificate ca{ReadText(set_.dir() + "/ca.key"),
                         ReadText(set_.CaFile())};
    CertificateRequest request;
    request.common_name = tag;
    request.uri_sans = uris;
    auto leaf = IssueCertificate(ca, request);
    EXPECT_TRUE(leaf.ok()) << leaf.status();
    const std::string cert = dir_ + "/" + tag + ".crt";
    const std::string key = dir_ + "/" + tag + ".key";
    EXPECT_TRUE(WritePrivateFile(cert, leaf->certificate_pem, 0644).ok());
    EXPECT_TRUE(WritePrivateFile(key, leaf->key_pem, 0600).ok());
    return RawStub(cert, key, set_.CaFile());
  }
  static grpc::Status Stats(v1::CoordinatorService::Stub& stub) {
    grpc::ClientContext ctx;
    ctx.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(5)));
    v1::CoordinatorStatsRequest req;
    v1::CoordinatorStatsResponse resp;
    return stub.Stats(&ctx, req, &resp);
  }

  std::string dir_;
  CertSet set_;
  EchoService service_;
  std::shared_ptr<Credentials> server_creds_;
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
};

TEST_F(MutualTlsTest, EachRoleReachesOnlyItsMethods) {
  StartServer(Issue(set_, Role::kCoordinator, "main"));
  auto agent = Stub(Issue(set_, Role::kAgent, "n1"));
  std::string caller;
  ASSERT_TRUE(Register(*agent, &caller).ok());
  EXPECT_EQ(caller, "agent/n1");  // the handler sees who called
  EXPECT_EQ(Stats(*agent).error_code(), grpc::StatusCode::PERMISSION_DENIED);

  auto viewer = Stub(Issue(set_, Role::kViewer, "bob"));
  EXPECT_TRUE(Stats(*viewer).ok());
  grpc::Status denied = Register(*viewer);
  EXPECT_EQ(denied.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_NE(denied.error_message().find("viewer/bob may not call "
                                        "/fabricpulse.v1.CoordinatorService/"
                                        "Register"),
            std::string::npos)
      << denied.error_message();
}

TEST_F(MutualTlsTest, StrangersAreRefused) {
  StartServer(Issue(set_, Role::kCoordinator, "main"));
  // A certificate from another CA: the handshake fails.
  auto other = CertSet::Create(dir_ + "/other", "fabricpulse", absl::Hours(1));
  ASSERT_TRUE(other.ok());
  auto stranger = Stub(Issue(*other, Role::kOperator, "mallory"));
  EXPECT_EQ(Stats(*stranger).error_code(), grpc::StatusCode::UNAVAILABLE);
  // Plaintext to a TLS port.
  auto plain = v1::CoordinatorService::NewStub(grpc::CreateChannel(
      absl::StrCat("127.0.0.1:", port_), grpc::InsecureChannelCredentials()));
  EXPECT_EQ(Stats(*plain).error_code(), grpc::StatusCode::UNAVAILABLE);
  // Another trust domain, same CA: the handshake passes (the CA signed it),
  // but the certificate names no identity of this deployment. A raw gRPC
  // client (no FabricPulse verifier) shows the server's answer.
  auto foreign = CertSet::Open(dir_ + "/pki", "elsewhere");
  ASSERT_TRUE(foreign.ok());
  auto eve = foreign->Issue({Role::kOperator, "eve"}, {}, {});
  ASSERT_TRUE(eve.ok());
  auto eve_stub = RawStub(eve->cert_file, eve->key_file, eve->ca_file);
  grpc::Status status = Stats(*eve_stub);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED)
      << status.error_message();
  EXPECT_NE(status.error_message().find("'spiffe://elsewhere/operator/eve' "
                                        "is not a FabricPulse identity"),
            std::string::npos)
      << status.error_message();
}

// Issue 31, item 1: every call of a connection shares its AuthContext, so
// the authorizer must not write into it. 16 threads on one connection: each
// call sees its caller, and the context holds as many properties after
// 4,000 calls as after the first (it grew by two a call, and concurrent
// writes against the handlers' reads crashed the coordinator).
TEST_F(MutualTlsTest, CallsOfOneConnectionShareNothingTheyWrite) {
  StartServer(Issue(set_, Role::kCoordinator, "main"));
  auto agent = Stub(Issue(set_, Role::kAgent, "n1"));
  std::string caller;
  uint64_t first = 0;
  ASSERT_TRUE(Register(*agent, &caller, &first).ok());
  ASSERT_GT(first, 0u);
  std::atomic<int> wrong{0}, failed{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 16; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 250; ++i) {
        std::string seen;
        if (!Register(*agent, &seen).ok()) {
          failed++;
        } else if (seen != "agent/n1") {
          wrong++;
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(failed.load(), 0);
  EXPECT_EQ(wrong.load(), 0);
  uint64_t last = 0;
  ASSERT_TRUE(Register(*agent, &caller, &last).ok());
  EXPECT_EQ(last, first) << "the connection's AuthContext grew";
  EXPECT_EQ(caller, "agent/n1");
}

// Issue 31, item 3: a certificate names exactly one identity, ROLE/NAME, or
// it is refused, whatever a policy pattern would match; other URI schemes
// beside the one identity do not matter.
TEST_F(MutualTlsTest, CertificatesWithOddIdentitiesAreRefused) {
  StartServer(Issue(set_, Role::kCoordinator, "main"));
  struct Case {
    std::string tag;
    std::vector<std::string> uris;
  };
  for (const Case& c : std::vector<Case>{
           {"deeper", {"spiffe://fabricpulse/operator/alice/extra"}},
           {"two",
            {"spiffe://fabricpulse/viewer/bob",
             "spiffe://fabricpulse/operator/mallory"}},
           {"good-and-odd",
            {"spiffe://fabricpulse/operator/alice",
             "spiffe://fabricpulse/operator/alice/x"}},
           {"none", {"https://example.com/operator/alice"}},
       }) {
    auto stub = StubWithUris(c.tag, c.uris);
    grpc::Status status = Stats(*stub);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED)
        << c.tag << ": " << status.error_message();
    EXPECT_NE(status.error_message().find("exactly one URI SAN"),
              std::string::npos)
        << c.tag << ": " << status.error_message();
  }
  // The healthy opposite: one identity, plus a URI of another scheme.
  auto alice = StubWithUris("alice", {"https://example.com/alice",
                                      "spiffe://fabricpulse/operator/alice"});
  EXPECT_TRUE(Stats(*alice).ok());
  auto n1 = StubWithUris("n1", {"spiffe://fabricpulse/agent/n1"});
  std::string caller;
  EXPECT_TRUE(Register(*n1, &caller).ok());
  EXPECT_EQ(caller, "agent/n1");
}

TEST_F(MutualTlsTest, ClientRefusesAServerThatIsNotWhoItExpects) {
  // An agent's certificate on the port the CLI thinks is the coordinator.
  StartServer(Issue(set_, Role::kAgent, "n1"));
  auto cli = Issue(set_, Role::kOperator, "alice");
  EXPECT_EQ(Stats(*Stub(cli)).error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_NE(cli->LastRefusal().find("is not coordinator/*"), std::string::npos)
      << cli->LastRefusal();
  // The coordinator dialing node n2 reaches n1 instead: refused too.
  auto coordinator = Issue(set_, Role::kCoordinator, "main");
  EXPECT_EQ(Register(*Stub(coordinator, {Role::kAgent, "n2"})).error_code(),
            grpc::StatusCode::UNAVAILABLE);
  // Silent case: the right expectation passes the TLS layer.
  EXPECT_EQ(Stats(*Stub(coordinator, {Role::kAgent, "n1"})).error_code(),
            grpc::StatusCode::PERMISSION_DENIED);
}

TEST_F(MutualTlsTest, RotatedFilesAreUsedWithoutARestart) {
  StartServer(Issue(set_, Role::kCoordinator, "main"));
  auto alice = Issue(set_, Role::kOperator, "alice");
  ASSERT_TRUE(Stats(*Stub(alice)).ok());
  // A new CA: the server's files are replaced in place.
  auto next = CertSet::Create(dir_ + "/next", "fabricpulse", absl::Hours(1));
  ASSERT_TRUE(next.ok());
  auto rotated = next->Issue({Role::kCoordinator, "main"}, {}, {});
  ASSERT_TRUE(rotated.ok());
  const TlsOptions& live = server_creds_->options();
  std::filesystem::copy_file(rotated->ca_file, live.ca_file,
                             std::filesystem::copy_options::overwrite_existing);
  std::filesystem::copy_file(rotated->key_file, live.key_file,
                             std::filesystem::copy_options::overwrite_existing);
  std::filesystem::copy_file(rotated->cert_file, live.cert_file,
                             std::filesystem::copy_options::overwrite_existing);
  auto bob = Issue(*next, Role::kOperator, "bob");
  EXPECT_TRUE(
      Eventually([&] { return Stats(*Stub(bob)).ok(); }, absl::Seconds(10)));
  // A new connection with the old CA's certificate no longer gets in.
  EXPECT_EQ(Stats(*Stub(alice)).error_code(), grpc::StatusCode::UNAVAILABLE);
}

TEST_F(MutualTlsTest, BadFilesStopTheProcessWithOneClearLine) {
  auto good = set_.Issue({Role::kAgent, "n1"}, {}, {});
  ASSERT_TRUE(good.ok());
  auto other = CertSet::Create(dir_ + "/other", "fabricpulse", absl::Hours(1));
  ASSERT_TRUE(other.ok());
  auto foreign = other->Issue({Role::kAgent, "n1"}, {}, {});
  ASSERT_TRUE(foreign.ok());
  const std::string fifo = dir_ + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);

  struct Case {
    std::string what;
    TlsOptions options;
    std::string expected;
  };
  std::vector<Case> cases;
  TlsOptions missing = *good;
  missing.cert_file = dir_ + "/nope.crt";
  cases.push_back(
      {"missing", missing, "--tls-cert: cannot read '" + dir_ + "/nope.crt'"});
  TlsOptions wrong_key = *good;
  wrong_key.key_file = foreign->key_file;
  cases.push_back({"wrong key", wrong_key, "not the private key"});
  TlsOptions wrong_ca = *good;
  wrong_ca.ca_file = foreign->ca_file;
  cases.push_back({"wrong CA", wrong_ca, "does not verify against the CA"});
  TlsOptions wrong_domain = *good;
  wrong_domain.trust_domain = "elsewhere";
  cases.push_back({"trust domain", wrong_domain, "exactly one FabricPulse"});
  TlsOptions from_fifo = *good;
  from_fifo.key_file = fifo;
  cases.push_back({"fifo", from_fifo, "a regular file is required"});
  TlsOptions half = *good;
  half.ca_file.clear();
  cases.push_back({"no CA", half, "--tls-ca: required"});
  TlsOptions both = *good;
  both.insecure = true;
  cases.push_back({"insecure and files", both, "--insecure: cannot"});
  for (const Case& c : cases) {
    auto creds = Credentials::Create(c.options);
    ASSERT_FALSE(creds.ok()) << c.what;
    EXPECT_EQ(creds.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(creds.status().message().find(c.expected), std::string::npos)
        << c.what << ": " << creds.status();
  }
  // The process's own role is checked where it matters.
  auto agent = Credentials::Create(*good);
  ASSERT_TRUE(agent.ok());
  EXPECT_TRUE((*agent)->RequireSelf(Role::kAgent, "n1", "--node-name").ok());
  EXPECT_FALSE((*agent)->RequireSelf(Role::kAgent, "n2", "--node-name").ok());
  EXPECT_FALSE((*agent)->RequireSelf(Role::kCoordinator, "", "").ok());
}

TEST_F(MutualTlsTest, PolicyFileIsReloadedAndABadOneKeepsTheLastGood) {
  const std::string file = dir_ + "/policy.json";
  auto write = [&](const std::string& text) {
    ASSERT_TRUE(WritePrivateFile(file, text, 0644).ok());
  };
  write(R"({"name": "v1", "allow_rules": [{"name": "all"}]})");
  auto source = PolicySource::FromFile(file, absl::Seconds(1));
  ASSERT_TRUE(source.ok()) << source.status();
  EXPECT_EQ((*source)->Current()->name(), "v1");
  write(R"({"name": "v2", "allow_rules": [{"name": "all"}]})");
  EXPECT_TRUE(Eventually([&] { return (*source)->Current()->name() == "v2"; },
                         absl::Seconds(10)));
  write(R"({"name": "v3", "allow_rules": [{"name": "all"}], "x": 1})");
  EXPECT_TRUE(Eventually([&] { return (*source)->rejected() == 1; },
                         absl::Seconds(10)));
  EXPECT_EQ((*source)->Current()->name(), "v2");  // the last good one
  write(R"({"name": "v4", "allow_rules": [{"name": "all"}]})");
  EXPECT_TRUE(Eventually([&] { return (*source)->Current()->name() == "v4"; },
                         absl::Seconds(10)));
  EXPECT_FALSE(
      PolicySource::FromFile(dir_ + "/none.json", absl::Seconds(1)).ok());
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::security
