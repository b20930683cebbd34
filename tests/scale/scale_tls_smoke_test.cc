// The fleet simulator as the TLS scale benchmark runs it, against the real
// coordinator with mutual TLS: 4 simulated agents, each under its own
// certificate (agent/sim-000K) issued from the deployment's CA by
// fleet_sim, GPU ranks, every second node busy while a file exists, and
// sweeps that take a fixed second (--sweep-seconds 1).
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "daemon/common/port_file.h"
#include "daemon/common/process.h"
#include "daemon/security/credentials.h"
#include "fabricpulse/v1/coordinator.grpc.pb.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "tests/integration/test_support.h"
#include "tests/scale/fault_plan.h"
#include "tests/scale/fleet_test_support.h"

namespace fabricpulse::scale {
namespace {

using ::fabricpulse::testing::Eventually;

constexpr absl::Duration kStartTimeout = absl::Seconds(30);
constexpr int kAgents = 4;

struct SweepEnd {
  grpc::Status status;
  std::string finished;  // the finished event's status
  absl::Duration took;
};

SweepEnd RunSweep(v1::CoordinatorService::Stub& stub,
                  const std::vector<std::string>& nodes) {
  const v1::SweepRequest request = AllReduceRequest(nodes, 1 << 20, 1 << 20);
  grpc::ClientContext ctx;
  const absl::Time start = absl::Now();
  ctx.set_deadline(absl::ToChronoTime(start + absl::Seconds(30)));
  auto reader = stub.RunSweep(&ctx, request);
  SweepEnd end;
  v1::SweepEvent event;
  while (reader->Read(&event)) {
    if (event.has_finished()) end.finished = event.finished().status();
  }
  end.status = reader->Finish();
  end.took = absl::Now() - start;
  return end;
}

class ScaleTlsSmokeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/fabricpulse-scale-tls-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    busy_file_ = dir_ + "/busy";
    std::ofstream(busy_file_) << "busy\n";
    auto certs = common::RunCommand(
        {Bin("fabricpulse"), "certs", dir_ + "/pki", "--issue",
         "coordinator/main", "--issue", "operator/test"},
        absl::Seconds(30));
    ASSERT_TRUE(certs.ok()) << certs.status();
    ASSERT_EQ(certs->exit.exit_code, 0) << certs->output;
    const std::string pki = dir_ + "/pki/";
    const std::string ports = dir_ + "/coord.ports";
    auto coordinator = common::Spawn(
        {{Bin("fabricpulse-coordinator"), "--listen", "127.0.0.1:0",
          "--metrics-listen", "127.0.0.1:0", "--state-dir", dir_ + "/state",
          "--port-file", ports, "--tls-cert", pki + "coordinator-main.crt",
          "--tls-key", pki + "coordinator-main.key", "--tls-ca",
          pki + "ca.crt"},
         {},
         dir_ + "/coordinator.log"});
    ASSERT_TRUE(coordinator.ok()) << coordinator.status();
    coordinator_ = *coordinator;
    auto bound = common::WaitForPortFile(ports, kStartTimeout);
    ASSERT_TRUE(bound.ok()) << bound.status();
    const std::string ready = dir_ + "/fleet.ready";
    auto fleet =
        common::Spawn({{Bin("fleet_sim"), "--coordinator", bound->grpc,
                        "--agents", absl::StrCat(kAgents), "--ranks", "2",
                        "--tls-ca-cert", pki + "ca.crt", "--tls-ca-key",
                        pki + "ca.key", "--sweep-seconds", "1", "--busy-every",
                        "2", "--busy-while", busy_file_, "--port-file", ready},
                       {},
                       dir_ + "/fleet.log"});
    ASSERT_TRUE(fleet.ok()) << fleet.status();
    fleet_ = *fleet;
    ASSERT_TRUE(
        Eventually([&] { return ReadyCount(ready) == kAgents; }, kStartTimeout))
        << "fleet not registered over TLS; logs in " << dir_;
    security::TlsOptions tls;
    tls.cert_file = pki + "operator-test.crt";
    tls.key_file = pki + "operator-test.key";
    tls.ca_file = pki + "ca.crt";
    auto credentials = security::Credentials::Create(tls);
    ASSERT_TRUE(credentials.ok()) << credentials.status();
    stub_ = v1::CoordinatorService::NewStub(grpc::CreateChannel(
        bound->grpc,
        (*credentials)->Channel({security::Role::kCoordinator, ""})));
  }

  void TearDown() override {
    stub_.reset();
    if (fleet_ > 0) {
      auto exit = common::TerminateProcess(fleet_, absl::Seconds(10));
      ASSERT_TRUE(exit.has_value());
      EXPECT_EQ(exit->exit_code, 0) << "fleet_sim " << exit->Describe();
    }
    if (coordinator_ > 0) {
      common::TerminateProcess(coordinator_, absl::Seconds(10));
    }
    if (!HasFailure()) std::filesystem::remove_all(dir_);
  }

  // Each agent's node and whether its GPUs are busy, as the coordinator
  // has them.
  std::vector<std::pair<std::string, bool>> Agents() {
    grpc::ClientContext ctx;
    v1::ListAgentsResponse agents;
    std::vector<std::pair<std::string, bool>> out;
    if (!stub_->ListAgents(&ctx, {}, &agents).ok()) return out;
    for (const v1::AgentInfo& a : agents.agents()) {
      bool busy = false;
      for (const v1::WorkerInfo& w : a.workers()) busy = busy || w.gpu_busy();
      out.emplace_back(a.node_name(), busy);
    }
    return out;
  }

  std::string dir_;
  std::string busy_file_;
  pid_t coordinator_ = -1;
  pid_t fleet_ = -1;
  std::unique_ptr<v1::CoordinatorService::Stub> stub_;
};

TEST_F(ScaleTlsSmokeTest, AgentsRegisterOverMutualTlsAndSweepsTakeTheirSecond) {
  const auto agents = Agents();
  ASSERT_EQ(agents.size(), static_cast<size_t>(kAgents)) << dir_;
  for (int i = 0; i < kAgents; ++i) {
    EXPECT_EQ(agents[i].first, SimNodeName(i));
    EXPECT_EQ(agents[i].second, i % 2 == 0) << agents[i].first;
  }
  // The coordinator reaches both agents over TLS, each naming its node.
  const SweepEnd end = RunSweep(*stub_, {SimNodeName(1), SimNodeName(3)});
  ASSERT_TRUE(end.status.ok()) << end.status.error_message();
  EXPECT_EQ(end.finished, "succeeded");
  EXPECT_GE(end.took, absl::Seconds(1));
  EXPECT_LT(end.took, absl::Seconds(10));
}

TEST_F(ScaleTlsSmokeTest, BusyNodesAreRefusedUntilTheFileGoesThenSweep) {
  const SweepEnd refused = RunSweep(*stub_, {SimNodeName(0), SimNodeName(1)});
  EXPECT_EQ(refused.status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED)
      << refused.status.error_message();
  EXPECT_TRUE(absl::StrContains(refused.status.error_message(), "busy"))
      << refused.status.error_message();
  ASSERT_EQ(unlink(busy_file_.c_str()), 0);
  // Freed nodes heartbeat at once: well inside the heartbeat interval.
  ASSERT_TRUE(Eventually(
      [&] {
        for (const auto& [node, busy] : Agents()) {
          if (busy) return false;
        }
        return true;
      },
      absl::Seconds(10)))
      << dir_;
  const SweepEnd end = RunSweep(*stub_, {SimNodeName(0), SimNodeName(1)});
  ASSERT_TRUE(end.status.ok()) << end.status.error_message();
  EXPECT_EQ(end.finished, "succeeded");
}

}  // namespace
}  // namespace fabricpulse::scale
