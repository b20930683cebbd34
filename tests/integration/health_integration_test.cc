// grpc.health.v1 on real coordinator and agent processes: on the main gRPC
// port and on --health-listen, SERVING once started, NOT_SERVING from the
// start of a shutdown (issue 13, item 4).
#include <signal.h>
#include <stdlib.h>

#include <memory>
#include <optional>

#include "absl/strings/match.h"
#include "absl/time/clock.h"
#include "daemon/common/process.h"
#include "daemon/security/credentials.h"
#include "fabricpulse/v1/coordinator.grpc.pb.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "tests/integration/daemon_launch.h"
#include "tests/integration/test_support.h"

namespace fabricpulse::testing {
namespace {

using grpc::health::v1::Health;
using grpc::health::v1::HealthCheckRequest;
using grpc::health::v1::HealthCheckResponse;

// A plaintext channel (the health port), or, with `peer`, mutual TLS as
// this process's operator identity (the main port).
std::unique_ptr<Health::Stub> HealthStub(
    const std::string& address,
    std::optional<security::PeerExpectation> peer = std::nullopt) {
  std::shared_ptr<grpc::ChannelCredentials> creds =
      grpc::InsecureChannelCredentials();
  if (peer) {
    security::TlsOptions tls;
    tls.cert_file = std::getenv("FABRICPULSE_TLS_CERT");
    tls.key_file = std::getenv("FABRICPULSE_TLS_KEY");
    tls.ca_file = std::getenv("FABRICPULSE_TLS_CA");
    auto made = security::Credentials::Create(tls);
    EXPECT_TRUE(made.ok()) << made.status();
    if (made.ok()) creds = (*made)->Channel(*peer);
  }
  return Health::NewStub(grpc::CreateChannel(address, creds));
}

grpc::Status Check(
    const std::string& address, const std::string& service,
    HealthCheckResponse* response,
    std::optional<security::PeerExpectation> peer = std::nullopt) {
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(5)));
  HealthCheckRequest request;
  request.set_service(service);
  return HealthStub(address, peer)->Check(&context, request, response);
}

void ExpectServing(
    const std::string& address, const std::string& service,
    std::optional<security::PeerExpectation> peer = std::nullopt) {
  HealthCheckResponse response;
  grpc::Status status = Check(address, service, &response, peer);
  ASSERT_TRUE(status.ok()) << address << " '" << service
                           << "': " << status.error_message();
  EXPECT_EQ(response.status(), HealthCheckResponse::SERVING)
      << address << " '" << service << "'";
}

TEST(DaemonHealthTest, BothDaemonsServeHealthOnTheMainAndTheHealthPort) {
  const std::string dir = TempDir();
  auto coordinator = StartCoordinator(dir, {"--health-listen", "127.0.0.1:0"});
  ASSERT_NE(coordinator, nullptr);
  ASSERT_FALSE(coordinator->ports.health.empty());
  EXPECT_TRUE(absl::StrContains(ReadFile(dir + "/coord.ports"),
                                "health=" + coordinator->ports.health));
  auto agent = StartAgent(dir, coordinator->ports.grpc,
                          {"--health-listen", "127.0.0.1:0"});
  ASSERT_NE(agent, nullptr);
  ASSERT_FALSE(agent->ports.health.empty());

  // The main ports are mutual TLS (any identity of the CA may ask for
  // health); the health ports plaintext.
  const security::PeerExpectation coordinator_id{security::Role::kCoordinator,
                                                 ""};
  const security::PeerExpectation agent_id{security::Role::kAgent, "node-a"};
  for (const auto& [address, peer] : std::vector<
           std::pair<std::string, std::optional<security::PeerExpectation>>>{
           {coordinator->ports.grpc, coordinator_id},
           {coordinator->ports.health, std::nullopt}}) {
    ExpectServing(address, "", peer);
    ExpectServing(address, "fabricpulse.v1.CoordinatorService", peer);
  }
  for (const auto& [address, peer] : std::vector<
           std::pair<std::string, std::optional<security::PeerExpectation>>>{
           {agent->ports.grpc, agent_id},
           {agent->ports.health, std::nullopt}}) {
    ExpectServing(address, "", peer);
    ExpectServing(address, "fabricpulse.v1.AgentService", peer);
  }
  HealthCheckResponse response;
  EXPECT_EQ(Check(coordinator->ports.health, "no.such.Service", &response)
                .error_code(),
            grpc::StatusCode::NOT_FOUND);

  // The health port serves nothing else.
  auto stub = v1::CoordinatorService::NewStub(grpc::CreateChannel(
      coordinator->ports.health, grpc::InsecureChannelCredentials()));
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(5)));
  v1::ListAgentsRequest request;
  v1::ListAgentsResponse agents;
  EXPECT_EQ(stub->ListAgents(&context, request, &agents).error_code(),
            grpc::StatusCode::UNIMPLEMENTED);

  // The CLI's probe (the image's HEALTHCHECK).
  CliResult cli = RunCli({"health", agent->ports.health});
  EXPECT_EQ(cli.exit_code, 0) << cli.err;
  EXPECT_EQ(cli.out, "SERVING\n");

  // The HEALTHCHECK of a daemon without a health port: the main port over
  // mutual TLS (the CLI's TLS files: this process's operator identity).
  cli = RunCli(
      {"health", coordinator->ports.grpc, "--tls-server", "coordinator"});
  EXPECT_EQ(cli.exit_code, 0) << cli.err;
  EXPECT_EQ(cli.out, "SERVING\n");
  cli = RunCli({"health", agent->ports.grpc, "--tls-server", "agent",
                "--service", "fabricpulse.v1.AgentService"});
  EXPECT_EQ(cli.exit_code, 0) << cli.err;
  EXPECT_EQ(cli.out, "SERVING\n");
  // A server of another role is refused, and says why.
  cli = RunCli({"health", coordinator->ports.grpc, "--tls-server", "agent"});
  EXPECT_EQ(cli.exit_code, 3) << cli.out << cli.err;
  EXPECT_TRUE(absl::StrContains(cli.err, "refused")) << cli.err;
  // Plaintext to the main port gets no answer; roles that serve nothing
  // are bad input.
  cli = RunCli({"health", coordinator->ports.grpc});
  EXPECT_EQ(cli.exit_code, 3) << cli.out << cli.err;
  cli = RunCli({"health", coordinator->ports.grpc, "--tls-server", "viewer"});
  EXPECT_EQ(cli.exit_code, 2) << cli.out << cli.err;
}

TEST(DaemonHealthTest, TlsServerNeedsTheTlsFiles) {
  const std::string dir = TempDir();
  auto coordinator = StartCoordinator(dir, {});
  ASSERT_NE(coordinator, nullptr);
  CliResult cli =
      RunCli({"--tls-cert", dir + "/missing.crt", "health",
              coordinator->ports.grpc, "--tls-server", "coordinator"});
  EXPECT_EQ(cli.exit_code, 2) << cli.out << cli.err;
  EXPECT_TRUE(absl::StrContains(cli.err, "missing.crt")) << cli.err;
}

TEST(DaemonHealthTest, ShutdownSaysNotServingThenTheListenerGoes) {
  const std::string dir = TempDir();
  auto coordinator = StartCoordinator(dir, {"--health-listen", "127.0.0.1:0"});
  ASSERT_NE(coordinator, nullptr);
  const std::string health = coordinator->ports.health;
  ExpectServing(health, "");

  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(30)));
  HealthCheckRequest request;
  auto stub = HealthStub(health);
  auto watch = stub->Watch(&context, request);
  HealthCheckResponse update;
  ASSERT_TRUE(watch->Read(&update));
  EXPECT_EQ(update.status(), HealthCheckResponse::SERVING);

  ASSERT_EQ(kill(coordinator->pid, SIGTERM), 0);
  ASSERT_TRUE(watch->Read(&update));
  EXPECT_EQ(update.status(), HealthCheckResponse::NOT_SERVING);
  // The stream ends (the service ends it, it does not hold the shutdown).
  EXPECT_FALSE(watch->Read(&update));
  auto exit = common::WaitForExit(coordinator->pid, absl::Seconds(10));
  ASSERT_TRUE(exit.has_value());
  coordinator->pid = -1;
  EXPECT_EQ(exit->exit_code, 0);
  HealthCheckResponse response;
  EXPECT_FALSE(Check(health, "", &response).ok());
  CliResult cli = RunCli({"health", health});
  EXPECT_EQ(cli.exit_code, 3) << cli.out << cli.err;
}

}  // namespace
}  // namespace fabricpulse::testing
