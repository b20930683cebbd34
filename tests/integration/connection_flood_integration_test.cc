// Issue 31, item 1, against real processes: many concurrent calls on one
// connection, as a holder of one certificate of the deployment's CA can
// make them. Every call of a connection shares gRPC's AuthContext; the
// authorizer wrote each caller's identity into it, and handlers read it
// unlocked: 20,000 calls from 16 threads killed the coordinator (KvSet as
// an agent, AbortSweep as an operator) and an agent (Abort as the
// coordinator). Now nothing is written per call: both daemons answer every
// call and a sweep still runs afterwards.
#include <atomic>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "daemon/security/credentials.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "tests/integration/test_support.h"

namespace fabricpulse::testing {
namespace {

using security::Identity;
using security::Role;

constexpr int kThreads = 16;
constexpr int kCallsPerThread = 400;  // 6,400 a connection

std::shared_ptr<grpc::ChannelCredentials> ChannelAs(
    client::LocalCluster& cluster, const Identity& id,
    const security::PeerExpectation& peer) {
  auto tls = cluster.Issue(id);
  EXPECT_TRUE(tls.ok()) << tls.status();
  auto creds = security::Credentials::Create(*tls);
  EXPECT_TRUE(creds.ok()) << creds.status();
  return (*creds)->Channel(peer);
}

// Runs `call` kThreads x kCallsPerThread times from kThreads threads;
// returns how many calls ended UNAVAILABLE (the server gone).
int Flood(const std::function<grpc::Status()>& call) {
  std::atomic<int> unavailable{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kCallsPerThread; ++i) {
        if (call().error_code() == grpc::StatusCode::UNAVAILABLE) {
          unavailable++;
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  return unavailable.load();
}

void Bound(grpc::ClientContext* ctx) {
  ctx->set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(20)));
}

TEST(ConnectionFloodTest, OneConnectionsConcurrentCallsCrashNothing) {
  std::unique_ptr<client::LocalCluster> cluster = StartCluster(1, 2);
  ASSERT_NE(cluster, nullptr);
  auto stub = Connect(cluster->coordinator());
  const v1::AgentInfo agent = ListAgents(*stub).at(0);

  // An agent's certificate: KvSet on keys it does not own (refused by the
  // store, after the handler read the caller).
  auto as_agent = v1::CoordinatorService::NewStub(grpc::CreateChannel(
      cluster->coordinator(), ChannelAs(*cluster, {Role::kAgent, "local-0"},
                                        {Role::kCoordinator, ""})));
  EXPECT_EQ(Flood([&] {
              grpc::ClientContext ctx;
              Bound(&ctx);
              v1::KvSetRequest req;
              req.set_key("no-such-sweep/key");
              req.set_value("x");
              v1::KvSetResponse resp;
              return as_agent->KvSet(&ctx, req, &resp);
            }),
            0);
  // An operator's: AbortSweep with nothing running (audited per call).
  EXPECT_EQ(Flood([&] {
              grpc::ClientContext ctx;
              Bound(&ctx);
              v1::AbortSweepRequest req;
              req.set_sweep_id("no-such-sweep");
              v1::AbortSweepResponse resp;
              return stub->AbortSweep(&ctx, req, &resp);
            }),
            0);
  // The coordinator's own identity against the agent: Abort of a
  // communicator that is not running (audited per call).
  auto to_agent = ConnectAgent(*cluster, agent);
  EXPECT_EQ(Flood([&] {
              grpc::ClientContext ctx;
              Bound(&ctx);
              v1::AgentAbortRequest req;
              req.set_comm_id("no-such-comm");
              v1::AgentAbortResponse resp;
              return to_agent->Abort(&ctx, req, &resp);
            }),
            0);

  // Both daemons are the ones that started, and still serve.
  const v1::AgentInfo after = ListAgents(*stub).at(0);
  EXPECT_EQ(after.agent_id(), agent.agent_id());
  SweepOutcome outcome = RunSweep(*stub, QuickSpec({"all_reduce"}, 64));
  EXPECT_TRUE(outcome.status.ok()) << outcome.status;
  EXPECT_EQ(outcome.finished.status(), "succeeded");
}

}  // namespace
}  // namespace fabricpulse::testing
