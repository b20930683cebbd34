#include "daemon/core/timeout_budget.h"

#include "gtest/gtest.h"

namespace fabricpulse::core {
namespace {
namespace FP_UNITY_ID {

// The derived timeouts keep the values the daemons have always run with.
TEST(TimeoutBudgetTest, DerivesTheDaemonsTimeouts) {
  EXPECT_EQ(kTimeouts.heartbeat_interval, absl::Seconds(1));
  EXPECT_EQ(kTimeouts.lease, absl::Seconds(5));
  EXPECT_EQ(kTimeouts.AgentRpc(), absl::Seconds(3));
  EXPECT_EQ(kTimeouts.Drain(), absl::Seconds(10));
  EXPECT_EQ(kTimeouts.Silence(absl::Seconds(30), 27),
            absl::Seconds(30 * 27 + 15));
  EXPECT_EQ(kTimeouts.PeerWait(absl::Seconds(30)), absl::Seconds(35));
  EXPECT_EQ(kTimeouts.StepStall(absl::Seconds(30), 27),
            absl::Seconds(30 * 27 + 5));
}

// Each derived timeout follows the ones it depends on.
TEST(TimeoutBudgetTest, FollowsItsInputs) {
  TimeoutBudget budget;
  budget.lease = absl::Seconds(10);
  budget.kill_grace = absl::Seconds(4);
  EXPECT_EQ(budget.AgentRpc(), absl::Seconds(5));
  EXPECT_EQ(budget.Drain(), absl::Seconds(1 + 4 + 10 + 4));
  EXPECT_EQ(budget.Silence(absl::Seconds(1), 3), absl::Seconds(3 + 30));
  EXPECT_EQ(budget.PeerWait(absl::Seconds(2)), absl::Seconds(12));
  EXPECT_EQ(budget.StepStall(absl::Seconds(2), 3), absl::Seconds(16));
  // A running sweep is called stalled before the coordinator gives up on
  // it for silence.
  EXPECT_LT(budget.StepStall(absl::Seconds(2), 3),
            budget.Silence(absl::Seconds(2), 3));
  // The agent answers the coordinator's calls within their bound.
  EXPECT_GT(budget.AgentRpc(), budget.worker_rpc);
}

// A larger fleet heartbeats less often, so that the coordinator takes at
// most 100 heartbeats a second, and its lease stays five intervals.
TEST(TimeoutBudgetTest, ScalesTheHeartbeatWithTheFleet) {
  EXPECT_EQ(kTimeouts.HeartbeatInterval(1), absl::Seconds(1));
  EXPECT_EQ(kTimeouts.HeartbeatInterval(100), absl::Seconds(1));
  EXPECT_EQ(kTimeouts.HeartbeatInterval(250), absl::Seconds(2.5));
  EXPECT_EQ(kTimeouts.HeartbeatInterval(1024), absl::Seconds(10.24));
  EXPECT_EQ(kTimeouts.Lease(64), absl::Seconds(5));
  EXPECT_EQ(kTimeouts.Lease(1024), absl::Seconds(51.2));
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::core
