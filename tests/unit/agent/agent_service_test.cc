// AgentService over a real (plaintext) gRPC server and fake workers: the
// workers rendezvous with the agent's own coordinator, whatever address a
// request names (issue 13: a RunSweep naming a foreign coordinator made
// workers rendezvous there).
#include "daemon/agent/agent_service.h"

#include "absl/time/clock.h"
#include "daemon/common/grpc_server.h"
#include "fabricpulse/v1/agent.grpc.pb.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "tests/fakes/fake_workers.h"

namespace fabricpulse::agent {
namespace {

class AgentServiceTest : public ::testing::Test {
 protected:
  void Start(const std::string& own_coordinator) {
    AgentIdentity identity;
    identity.node_name = "node-a";
    identity.backend = "gloo";
    identity.coordinator = own_coordinator;
    contact_.HeartbeatAnswered(absl::Now(), 1, "s1");
    service_ = std::make_unique<AgentServiceImpl>(identity, &workers_, nullptr,
                                                  &contact_);
    auto listening = common::StartGrpcServer("127.0.0.1:0", service_.get(),
                                             grpc::InsecureServerCredentials(),
                                             1 << 20, common::kAgentCallLimits);
    ASSERT_TRUE(listening.ok()) << listening.status();
    server_ = std::move(listening->server);
    stub_ = v1::AgentService::NewStub(
        grpc::CreateChannel("127.0.0.1:" + std::to_string(listening->port),
                            grpc::InsecureChannelCredentials()));
  }
  void TearDown() override {
    if (server_) server_->Shutdown(absl::ToChronoTime(absl::Now()));
  }
  grpc::Status Sweep(const std::string& coordinator) {
    v1::AgentSweepRequest req;
    req.set_sweep_id("s1");
    req.set_comm_id("c1");
    req.set_nranks(1);
    req.set_membership_epoch(1);
    req.set_lease_seconds(5);
    req.set_coordinator(coordinator);
    v1::RankAssignment* a = req.add_ranks();
    a->set_local_index(0);
    a->set_rank(0);
    grpc::ClientContext ctx;
    ctx.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(10)));
    auto reader = stub_->RunSweep(&ctx, req);
    v1::RankEvent event;
    while (reader->Read(&event)) {
    }
    return reader->Finish();
  }

  fakes::FakeLocalWorkers workers_{1};
  CoordinatorContact contact_;
  std::unique_ptr<AgentServiceImpl> service_;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<v1::AgentService::Stub> stub_;
};

TEST_F(AgentServiceTest, WorkersUseTheAgentsOwnCoordinator) {
  Start("coordinator.example:7070");
  ASSERT_TRUE(Sweep("attacker.example:1").ok());
  const auto sweeps = workers_.worker(0).sweeps();
  ASSERT_EQ(sweeps.size(), 1u);
  EXPECT_EQ(sweeps[0].coordinator(), "coordinator.example:7070");
}

// Silent case: an agent built without one (tests of the relay alone) passes
// the request's on.
TEST_F(AgentServiceTest, WithoutAnOwnAddressTheRequestsIsPassedOn) {
  Start("");
  ASSERT_TRUE(Sweep("coordinator.example:7070").ok());
  const auto sweeps = workers_.worker(0).sweeps();
  ASSERT_EQ(sweeps.size(), 1u);
  EXPECT_EQ(sweeps[0].coordinator(), "coordinator.example:7070");
}

}  // namespace
}  // namespace fabricpulse::agent
