// One table of exit codes, true for every command (issue 33, item 2), on the
// real binary: a sweep id the coordinator does not have is bad input (2) for
// every command that takes one; an address without a port is bad input (2)
// for every command that connects; a name that does not resolve, a closed
// port and another gRPC server (an agent's port) are unreachable (3), each
// in one line that says which.
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "client/commands/exit_codes.h"
#include "gtest/gtest.h"
#include "tests/integration/test_support.h"

namespace fabricpulse::testing {
namespace {

// Every command that calls the coordinator, with the arguments it needs to
// get that far.
const std::vector<std::vector<std::string>> kConnecting = {
    {"agents"},
    {"plans"},
    {"schedules"},
    {"nodes"},
    {"campaign", "--plan", "p"},
    {"sweep"},
    {"results"},
    {"diagnose"},
    {"report", "-o", "/dev/null"},
    {"abort"},
    {"matrix"},
    {"isolate"},
    {"compare", "a", "b"}};

std::vector<std::string> With(std::vector<std::string> args,
                              const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

std::string Joined(const std::vector<std::string>& args) {
  std::string out;
  for (const std::string& a : args) absl::StrAppend(&out, a, " ");
  return out;
}

TEST(ExitCodesTest, AnAddressWithoutAPortIsBadInputForEveryCommand) {
  for (const std::vector<std::string>& command : kConnecting) {
    CliResult r =
        RunCli(With(command, {"--coordinator", "127.0.0.1", "--insecure"}));
    EXPECT_EQ(r.exit_code, client::kExitBadInput) << Joined(command) << r.err;
    EXPECT_EQ(r.err,
              "fabricpulse: --coordinator: '127.0.0.1' has no port; use "
              "HOST:PORT, PORT 1 to 65535 (e.g. 127.0.0.1:7070, "
              "coordinator.example:7070, [::1]:7070)\n")
        << Joined(command);
  }
  CliResult port = RunCli({"agents", "--coordinator", "h:99999", "--insecure"});
  EXPECT_EQ(port.exit_code, client::kExitBadInput) << port.err;
  EXPECT_TRUE(absl::StrContains(port.err, "has port '99999'")) << port.err;
}

TEST(ExitCodesTest, ANameThatDoesNotResolveSaysSo) {
  // A 64-character label: refused by the resolver itself, so no query
  // leaves this machine.
  const std::string host = std::string(64, 'a') + ".invalid";
  CliResult r = RunCli(
      {"agents", "--coordinator", absl::StrCat(host, ":7070"), "--insecure"});
  EXPECT_EQ(r.exit_code, client::kExitUnreachable) << r.err;
  EXPECT_TRUE(absl::StartsWith(
      r.err, absl::StrCat("fabricpulse: cannot resolve '", host, "'")))
      << r.err;
  EXPECT_FALSE(absl::StrContains(r.err, "TLS")) << r.err;
}

class ExitCodesClusterTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    cluster_ = StartCluster(/*agents=*/1, /*ranks=*/1).release();
  }
  static void TearDownTestSuite() {
    delete cluster_;
    cluster_ = nullptr;
  }
  void SetUp() override { ASSERT_NE(cluster_, nullptr); }
  static client::LocalCluster* cluster_;
};
client::LocalCluster* ExitCodesClusterTest::cluster_ = nullptr;

TEST_F(ExitCodesClusterTest, AnUnknownSweepIdIsBadInputForEveryCommand) {
  const std::string at = cluster_->coordinator();
  for (const std::vector<std::string>& command :
       std::vector<std::vector<std::string>>{
           {"results", "--sweep", "no-such-sweep"},
           {"diagnose", "--sweep", "no-such-sweep"},
           {"report", "--sweep", "no-such-sweep", "-o", "/dev/null"},
           {"matrix", "--sweep", "no-such-sweep"},
           {"compare", "no-such-sweep", "no-such-sweep-2"}}) {
    CliResult r = RunCli(With(command, {"--coordinator", at}));
    EXPECT_EQ(r.exit_code, client::kExitBadInput) << Joined(command) << r.err;
    EXPECT_TRUE(absl::StrContains(r.err, "no-such-sweep"))
        << Joined(command) << r.err;
  }
}

TEST_F(ExitCodesClusterTest, AnAgentsPortIsRefusedByItsIdentity) {
  // An agent's port answers gRPC with mutual TLS of the same CA, but its
  // certificate is an agent's.
  auto stub = Connect(cluster_->coordinator());
  const std::vector<v1::AgentInfo> agents = ListAgents(*stub);
  ASSERT_FALSE(agents.empty());
  CliResult r = RunCli({"agents", "--coordinator", agents[0].address()});
  EXPECT_EQ(r.exit_code, client::kExitUnreachable) << r.err;
  EXPECT_FALSE(absl::StrContains(r.err, "grpc")) << r.err;
  EXPECT_TRUE(absl::StrContains(r.err, "is not coordinator/*")) << r.err;
}

// Last in this file: it leaves the CLI's environment plaintext.
TEST(ExitCodesPlaintextTest, AnotherGrpcServerIsNotTheCoordinator) {
  // Plaintext, nothing checks identities: an agent's port answers the call
  // itself, with gRPC's "unimplemented", which used to leak raw (exit 1).
  // The daemons inherit this process's environment: no identity of the
  // TLS cluster before may reach them.
  for (const char* name :
       {"FABRICPULSE_TLS_CERT", "FABRICPULSE_TLS_KEY", "FABRICPULSE_TLS_CA"}) {
    unsetenv(name);
  }
  client::LocalClusterOptions options;
  options.agents = 1;
  options.ranks = 1;
  options.insecure = true;
  auto cluster = StartCluster(options);
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  auto stub = Connect((*cluster)->coordinator());
  const std::vector<v1::AgentInfo> agents = ListAgents(*stub);
  ASSERT_FALSE(agents.empty());
  CliResult r = RunCli({"agents", "--coordinator", agents[0].address()});
  EXPECT_EQ(r.exit_code, client::kExitUnreachable) << r.err;
  EXPECT_EQ(r.err,
            "fabricpulse: agents: the --coordinator address answers gRPC but "
            "not as a FabricPulse coordinator (an agent's port?)\n");
}

}  // namespace
}  // namespace fabricpulse::testing
