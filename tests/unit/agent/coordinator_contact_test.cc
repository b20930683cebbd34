#include "daemon/agent/coordinator_contact.h"

#include "absl/strings/match.h"
#include "gtest/gtest.h"

namespace fabricpulse::agent {
namespace {

const absl::Time kT0 = absl::FromUnixSeconds(1000);
constexpr absl::Duration kLease = absl::Seconds(5);

absl::Time At(double seconds) { return kT0 + absl::Seconds(seconds); }

TEST(CoordinatorContactTest, SweepHoldsItsLeaseWhileHeartbeatsListIt) {
  CoordinatorContact contact;
  contact.Registered(At(0), 1);
  EXPECT_TRUE(contact.CheckLease("s1", At(1), kLease, At(1)).ok());
  contact.HeartbeatAnswered(At(2), 1, "s1");
  contact.HeartbeatAnswered(At(5), 1, "s1");
  // 9.9 s after the sweep started, 4.9 s after the last answered heartbeat.
  EXPECT_TRUE(contact.CheckLease("s1", At(1), kLease, At(9.9)).ok());
}

TEST(CoordinatorContactTest, LeaseExpiresWithoutAnsweredHeartbeats) {
  CoordinatorContact contact;
  contact.Registered(At(0), 1);
  contact.HeartbeatAnswered(At(2), 1, "s1");
  absl::Status s = contact.CheckLease("s1", At(1), kLease, At(7.5));
  EXPECT_EQ(s.code(), absl::StatusCode::kUnavailable);
  EXPECT_TRUE(absl::StrContains(s.message(), "sweep lease expired")) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "5.5 s")) << s;
}

TEST(CoordinatorContactTest, LeaseCountsFromTheSweepsArrivalAtTheEarliest) {
  CoordinatorContact contact;
  contact.Registered(At(0), 1);
  // No heartbeat answered since registration 10 s ago, but the sweep
  // request itself came from the coordinator at 10 s.
  EXPECT_TRUE(contact.CheckLease("s1", At(10), kLease, At(14)).ok());
  EXPECT_FALSE(contact.CheckLease("s1", At(10), kLease, At(15.5)).ok());
}

TEST(CoordinatorContactTest, AnswerWithoutTheSweepEndsIt) {
  CoordinatorContact contact;
  contact.Registered(At(0), 1);
  contact.HeartbeatAnswered(At(3), 1, "");
  absl::Status s = contact.CheckLease("s1", At(2), kLease, At(3.1));
  EXPECT_EQ(s.code(), absl::StatusCode::kUnavailable);
  EXPECT_TRUE(absl::StrContains(s.message(), "no longer runs sweep s1")) << s;
}

TEST(CoordinatorContactTest, AnswerToAHeartbeatSentBeforeTheSweepDoesNotCount) {
  CoordinatorContact contact;
  contact.Registered(At(0), 1);
  // Sent at 1.9 (before the coordinator reserved this agent), answered
  // after the sweep reached the agent at 2.
  contact.HeartbeatAnswered(At(1.9), 1, "");
  EXPECT_TRUE(contact.CheckLease("s1", At(2), kLease, At(2.5)).ok());
}

TEST(CoordinatorContactTest, ALaterAnswerIsNotOverwrittenByAnEarlierOne) {
  CoordinatorContact contact;
  contact.HeartbeatAnswered(At(4), 1, "s1");
  contact.HeartbeatAnswered(At(3), 1, "");  // slow answer, older state
  EXPECT_TRUE(contact.CheckLease("s1", At(2), kLease, At(5)).ok());
}

TEST(CoordinatorContactTest, ForgottenAgentEndsItsSweep) {
  CoordinatorContact contact;
  contact.Registered(At(0), 1);
  contact.HeartbeatAnswered(At(2), 1, "s1");
  contact.Forgotten(At(3));
  EXPECT_EQ(contact.CheckLease("s1", At(1), kLease, At(3.5)).code(),
            absl::StatusCode::kUnavailable);
}

TEST(CoordinatorContactTest, StaleEpochIsRefusedNewerIsAdmitted) {
  CoordinatorContact contact;
  contact.Registered(At(0), 3);
  EXPECT_TRUE(contact.AdmitEpoch(3).ok());
  absl::Status s = contact.AdmitEpoch(2);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(absl::StrContains(s.message(), "stale membership epoch 2")) << s;
  contact.HeartbeatAnswered(At(1), 7, "");
  EXPECT_FALSE(contact.AdmitEpoch(6).ok());
  EXPECT_TRUE(contact.AdmitEpoch(7).ok());
}

// Issue 31, item 2: the epoch comes only from the agent's own registration
// and heartbeats. A sweep request's epoch (2^64 - 1 from a forged request)
// is admitted or refused, never kept, so it cannot make the agent refuse
// every later legitimate sweep as stale.
TEST(CoordinatorContactTest, ARequestsEpochIsNeverKept) {
  CoordinatorContact contact;
  contact.Registered(At(0), 3);
  EXPECT_TRUE(contact.AdmitEpoch(~uint64_t{0}).ok());
  EXPECT_TRUE(contact.AdmitEpoch(3).ok());
  EXPECT_TRUE(contact.AdmitEpoch(4).ok());  // heartbeats not yet caught up
  EXPECT_TRUE(contact.AdmitEpoch(3).ok());
}

TEST(CoordinatorContactTest, ARestartedCoordinatorsLowerEpochIsAdopted) {
  CoordinatorContact contact;
  contact.Registered(At(0), 9);
  contact.Registered(At(10), 1);  // the coordinator restarted
  EXPECT_TRUE(contact.AdmitEpoch(1).ok());
  EXPECT_TRUE(contact.AdmitEpoch(2).ok());
}

}  // namespace
}  // namespace fabricpulse::agent
