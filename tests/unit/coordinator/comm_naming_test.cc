// CommNaming: the same members keep their communicator's id while they are
// in use, and get a new one once they have been quiet for nearly their
// agents' --release-idle-after (or were never seen), so no rank reuses a
// communicator a peer has dropped.
#include "daemon/coordinator/comm_naming.h"

#include <gtest/gtest.h>

namespace fabricpulse::coordinator {
namespace {

std::vector<v1::AgentInfo> Members(double release_seconds_a,
                                   double release_seconds_b) {
  std::vector<v1::AgentInfo> agents(2);
  agents[0].set_node_name("a");
  agents[0].set_release_idle_after_seconds(release_seconds_a);
  agents[0].add_workers()->set_incarnation("a-0-1");
  agents[1].set_node_name("b");
  agents[1].set_release_idle_after_seconds(release_seconds_b);
  agents[1].add_workers()->set_incarnation("b-0-1");
  return agents;
}

const absl::Time kT0 = absl::FromUnixSeconds(1'000'000);

TEST(CommNamingTest, WithoutReleaseTheIdNeverChangesByTime) {
  CommNaming naming;
  const auto agents = Members(0, 0);
  const std::string id = naming.CommId(agents, 3, kT0);
  naming.Used(agents, kT0);
  EXPECT_EQ(naming.CommId(agents, 3, kT0 + absl::Hours(100)), id);
}

// Found by tests/integration/campaign_check.sh: a restarted coordinator
// (epochs and generations start over, an empty mirror) named a
// communicator that one worker still cached and its peer had evicted: the
// sweep failed. Each naming (coordinator process) has its own ids.
TEST(CommNamingTest, ARestartedCoordinatorNeverReusesTheLastOnesIds) {
  const auto agents = Members(0, 0);
  CommNaming before;
  CommNaming after;
  EXPECT_NE(before.CommId(agents, 3, kT0), after.CommId(agents, 3, kT0));
  EXPECT_EQ(after.CommId(agents, 3, kT0), after.CommId(agents, 3, kT0));
}

TEST(CommNamingTest, MembersInUseKeepTheirCommunicator) {
  CommNaming naming;
  const auto agents = Members(600, 600);
  const std::string first = naming.CommId(agents, 3, kT0);
  naming.Used(agents, kT0 + absl::Seconds(1));
  // 10 minutes' release, 10 s margin: reused up to 589 s of quiet.
  const std::string second =
      naming.CommId(agents, 3, kT0 + absl::Seconds(1 + 589));
  EXPECT_EQ(second, naming.CommId(agents, 3, kT0 + absl::Seconds(1 + 589)));
  naming.Used(agents, kT0 + absl::Seconds(1 + 589));
  EXPECT_EQ(naming.CommId(agents, 3, kT0 + absl::Seconds(1000)), second);
}

TEST(CommNamingTest, QuietMembersGetANewCommunicatorBeforeTheWorkersDropIt) {
  CommNaming naming;
  // The shortest release among the members counts: 100 s, margin 10 s.
  const auto agents = Members(600, 100);
  naming.CommId(agents, 3, kT0);
  naming.Used(agents, kT0);
  const std::string reused = naming.CommId(agents, 3, kT0 + absl::Seconds(89));
  naming.Used(agents, kT0);
  const std::string renewed = naming.CommId(agents, 3, kT0 + absl::Seconds(90));
  EXPECT_NE(renewed, reused);
}

TEST(CommNamingTest, UnseenMembersGetANewCommunicator) {
  // A coordinator that (re)started does not know how long members were
  // quiet: their first id is a new generation, unlike members that never
  // release (the release setting is not part of the member key).
  CommNaming releasing;
  CommNaming keeping;
  const std::string fresh = releasing.CommId(Members(600, 600), 3, kT0);
  EXPECT_NE(fresh, keeping.CommId(Members(0, 0), 3, kT0));
  releasing.Used(Members(600, 600), kT0);
  EXPECT_EQ(releasing.CommId(Members(600, 600), 3, kT0 + absl::Seconds(1)),
            fresh);
}

TEST(CommNamingTest, MarginIsATenthAtMostTenSeconds) {
  EXPECT_EQ(CommNaming::ReleaseMargin(absl::Seconds(1)),
            absl::Milliseconds(100));
  EXPECT_EQ(CommNaming::ReleaseMargin(absl::Minutes(10)), absl::Seconds(10));
}

// Member sets over workers a0, b0, c0, ...: a0 is in every set.
std::vector<v1::AgentInfo> SetOf(const std::string& nodes) {
  std::vector<v1::AgentInfo> agents;
  for (char n : nodes) {
    v1::AgentInfo agent;
    agent.set_node_name(std::string(1, n));
    agent.add_workers()->set_incarnation(std::string(1, n) + "-0-1");
    agents.push_back(agent);
  }
  return agents;
}

// A worker keeps core::kWorkerCommCacheCapacity (4) communicators: a set
// that one of its workers has evicted since, while another may still hold
// it, gets a new id, so that every rank creates it afresh.
TEST(CommNamingTest, ASetEvictedByOneMemberGetsANewCommunicator) {
  CommNaming naming;
  const std::string abcd = naming.CommId(SetOf("abcd"), 3, kT0);
  // Within a's capacity: the set keeps its id.
  naming.CommId(SetOf("ab"), 3, kT0);
  naming.CommId(SetOf("ac"), 3, kT0);
  EXPECT_EQ(naming.CommId(SetOf("abcd"), 3, kT0), abcd);
  // Four other sets through a: a evicts abcd, b, c and d still hold it.
  for (const char* set : {"ab", "ac", "ad", "abc"}) {
    naming.CommId(SetOf(set), 3, kT0);
  }
  const std::string renewed = naming.CommId(SetOf("abcd"), 3, kT0);
  EXPECT_NE(renewed, abcd);
  // Every member now holds the new one: reused again.
  EXPECT_EQ(naming.CommId(SetOf("abcd"), 3, kT0), renewed);
}

// A set none of whose workers holds its communicator needs no new id:
// every rank creates it anyway.
TEST(CommNamingTest, ASetEvictedByEveryMemberKeepsItsName) {
  CommNaming naming;
  const std::string ab = naming.CommId(SetOf("ab"), 3, kT0);
  for (const char* set : {"abc", "abd", "abe", "abf"}) {
    naming.CommId(SetOf(set), 3, kT0);
  }
  EXPECT_EQ(naming.CommId(SetOf("ab"), 3, kT0), ab);
}

}  // namespace
}  // namespace fabricpulse::coordinator
