// The sweep lease and membership epochs against real processes (2 agents x
// 2 Gloo ranks): a coordinator that stops answering (SIGSTOP: its sockets
// stay open, as in a network partition) leaves no worker busy beyond the
// lease, and a request planned at an older membership epoch is refused.
#include <signal.h>

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/time/clock.h"
#include "fabricpulse/v1/agent.grpc.pb.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "tests/integration/background_sweep.h"
#include "tests/integration/test_support.h"

namespace fabricpulse::testing {
namespace {

// The coordinator's default agent lease, which it also gives sweeps.
constexpr absl::Duration kLease = absl::Seconds(5);
// After the lease: the agent polls every 100 ms and gives a worker 2 s to
// return from its abort before killing it.
constexpr absl::Duration kAbortBound = absl::Seconds(4);

// The agent's own answer; an error (it did not answer) is never taken for
// an idle agent.
absl::StatusOr<v1::AgentInfo> Describe(v1::AgentService::Stub& agent) {
  grpc::ClientContext ctx;
  ctx.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(5)));
  v1::DescribeResponse resp;
  grpc::Status status = agent.Describe(&ctx, {}, &resp);
  if (!status.ok()) {
    return absl::Status(static_cast<absl::StatusCode>(status.error_code()),
                        status.error_message());
  }
  return resp.agent();
}

class LeaseTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cluster_ = StartCluster(2, 2);
    ASSERT_NE(cluster_, nullptr);
    stub_ = Connect(cluster_->coordinator());
    ASSERT_TRUE(RunSweep(*stub_, QuickSpec({"all_reduce"}, 64)).status.ok());
    for (const v1::AgentInfo& a : ListAgents(*stub_)) {
      agents_.push_back(ConnectAgent(*cluster_, a));
    }
    ASSERT_EQ(agents_.size(), 2u);
  }
  std::unique_ptr<client::LocalCluster> cluster_;
  std::unique_ptr<v1::CoordinatorService::Stub> stub_;
  std::vector<std::unique_ptr<v1::AgentService::Stub>> agents_;
};

TEST_F(LeaseTest, StoppedCoordinatorLeavesNoWorkerBusyBeyondTheLease) {
  v1::SweepSpec slow = QuickSpec({"all_reduce"}, 8 << 20);
  slow.set_min_bytes(8 << 20);
  slow.set_iters(100000);
  slow.set_check(false);
  slow.set_placement("out_of_place");
  BackgroundSweep sweep(*stub_, slow, 0);
  ASSERT_TRUE(sweep.WaitStarted());
  ASSERT_FALSE(sweep.sweep_id().empty());
  // Both agents are running it.
  ASSERT_TRUE(Eventually(
      [&] {
        for (auto& agent : agents_) {
          auto info = Describe(*agent);
          if (!info.ok() || info->running_sweep() != sweep.sweep_id()) {
            return false;
          }
        }
        return true;
      },
      absl::Seconds(30)));

  const pid_t coordinator = cluster_->coordinator_pid();
  ASSERT_GT(coordinator, 0);  // never kill(0, ...)
  ASSERT_EQ(kill(coordinator, SIGSTOP), 0);
  const absl::Time stopped = absl::Now();
  const bool idle = Eventually(
      [&] {
        for (auto& agent : agents_) {
          auto info = Describe(*agent);
          if (!info.ok() || !info->running_sweep().empty()) return false;
        }
        return true;
      },
      kLease + kAbortBound + absl::Seconds(10));
  const absl::Duration idle_after = absl::Now() - stopped;
  ASSERT_EQ(kill(coordinator, SIGCONT), 0);
  ASSERT_TRUE(idle) << "agents still running the sweep after " << idle_after;
  EXPECT_LT(idle_after, kLease + kAbortBound) << idle_after;
  EXPECT_GT(idle_after, kLease - absl::Seconds(1)) << idle_after;

  // The coordinator, answering again, ends the sweep with the agents' reason.
  SweepOutcome outcome = sweep.Join();
  EXPECT_FALSE(outcome.status.ok());
  EXPECT_EQ(outcome.finished.status(), "failed") << outcome.status;
  EXPECT_TRUE(absl::StrContains(outcome.status.message(), "sweep lease"))
      << outcome.status;

  SweepOutcome next;
  EXPECT_TRUE(Eventually(
      [&] {
        next = RunSweep(*stub_, QuickSpec({"all_reduce", "alltoall"}, 4096));
        return next.status.ok();
      },
      absl::Seconds(45)))
      << next.status;
}

TEST_F(LeaseTest, RequestFromAnOlderMembershipEpochIsRefused) {
  grpc::ClientContext list_ctx;
  v1::ListAgentsResponse listed;
  ASSERT_TRUE(stub_->ListAgents(&list_ctx, {}, &listed).ok());
  // Two agents joined: epoch 2 at least, and the sweep in SetUp showed it
  // to both agents.
  ASSERT_GE(listed.membership_epoch(), 2u);
  const v1::AgentInfo agent = listed.agents(0);

  v1::AgentSweepRequest stale;
  stale.set_sweep_id("late-answer");
  stale.set_comm_id("c-old");
  stale.set_nranks(4);
  *stale.mutable_spec() = QuickSpec({"all_reduce"}, 64);
  // Epoch 1 (one agent) is older than any epoch the agents were shown (2 at
  // least, by SetUp's sweep). The listing's epoch minus one is not stale to
  // an agent when the membership moved on after that sweep: seen once in
  // CI, where the agent ran the request instead of refusing it.
  stale.set_membership_epoch(1);
  for (int i = 0; i < agent.workers_size(); ++i) {
    v1::RankAssignment* r = stale.add_ranks();
    r->set_local_index(i);
    r->set_rank(i);
  }
  stale.set_coordinator(cluster_->coordinator());
  grpc::ClientContext ctx;
  ctx.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(10)));
  auto reader = agents_[0]->RunSweep(&ctx, stale);
  v1::RankEvent event;
  EXPECT_FALSE(reader->Read(&event));
  grpc::Status status = reader->Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_TRUE(
      absl::StrContains(status.error_message(), "stale membership epoch"))
      << status.error_message();

  // Nothing changed: the next sweep reuses the communicator.
  SweepOutcome next = RunSweep(*stub_, QuickSpec({"all_reduce"}, 64));
  ASSERT_TRUE(next.status.ok()) << next.status;
  EXPECT_TRUE(next.comm.reused());
}

}  // namespace
}  // namespace fabricpulse::testing
