// The membership's bounds on fake time: malformed descriptions and
// heartbeats are refused and change nothing; the table holds at most
// max_agents agents and max_ranks ranks, makes room by forgetting the
// longest-lost agent and forgets lost agents after the retention; a second
// live agent with a node name is refused, a restart of the same agent is
// not.
#include "daemon/coordinator/membership.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/fakes/fake_clock.h"

namespace fabricpulse::coordinator {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

v1::AgentInfo Agent(const std::string& node, int workers = 2,
                    const std::string& instance = "",
                    const std::string& address = "") {
  v1::AgentInfo info;
  info.set_node_name(node);
  info.set_address(address.empty() ? node + ":7071" : address);
  info.set_backend("gloo");
  info.set_backend_version("gloo 0.5.0");
  info.set_instance_id(instance.empty() ? node + "-instance" : instance);
  info.set_boot_id("boot-" + node);
  for (int i = 0; i < workers; ++i) {
    v1::WorkerInfo* w = info.add_workers();
    w->set_local_index(i);
    w->set_incarnation(absl::StrCat(node, "-", i, "-1"));
    w->set_ready(true);
    w->set_gpu(-1);
  }
  return info;
}

std::vector<v1::WorkerInfo> Workers(const v1::AgentInfo& info) {
  return {info.workers().begin(), info.workers().end()};
}

class MembershipTest : public ::testing::Test {
 protected:
  Membership& Make(MembershipLimits limits) {
    membership_ =
        std::make_unique<Membership>(core::kTimeouts, &clock_, limits);
    return *membership_;
  }
  fakes::FakeClock clock_;
  std::unique_ptr<Membership> membership_;
};

TEST_F(MembershipTest, AValidAgentRegistersAndHeartbeats) {
  Membership& m = Make({});
  auto registered = m.Register(Agent("node-a"));
  ASSERT_TRUE(registered.ok()) << registered.status();
  EXPECT_TRUE(m.Heartbeat(registered->agent_id, Workers(Agent("node-a"))).ok());
  EXPECT_EQ(m.size(), 1);
}

TEST_F(MembershipTest, ANewlineInTheNodeNameIsRefusedAndChangesNothing) {
  Membership& m = Make({});
  const uint64_t epoch = m.epoch();
  auto registered =
      m.Register(Agent("node-a\nI 12:00:00.000 coordinator: agent evil"));
  ASSERT_EQ(registered.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(registered.status().message(),
              HasSubstr("node_name: 'node-a\\nI 12:00:00.000 coordinato...'"));
  EXPECT_THAT(registered.status().message(), Not(HasSubstr("\n")));
  EXPECT_EQ(m.size(), 0);
  EXPECT_EQ(m.epoch(), epoch);
}

TEST_F(MembershipTest, MalformedDescriptionsAreRefused) {
  Membership& m = Make({});
  v1::AgentInfo info = Agent("node-a");
  info.set_address("");
  EXPECT_THAT(m.Register(info).status().message(), HasSubstr("address"));
  info = Agent("node-a");
  info.set_backend_version(std::string(200, 'v'));
  EXPECT_THAT(m.Register(info).status().message(),
              HasSubstr("backend_version: 'vvvv"));
  info = Agent("node-a", 0);
  EXPECT_THAT(m.Register(info).status().message(),
              HasSubstr("workers: none listed"));
  info = Agent("node-a", 513);
  EXPECT_THAT(m.Register(info).status().message(),
              HasSubstr("workers: 513 listed; allowed: up to 512 per agent"));
  info = Agent("node-a");
  info.mutable_workers(1)->set_local_index(0);
  EXPECT_THAT(m.Register(info).status().message(),
              HasSubstr("workers[1].local_index: 0 is listed twice"));
  EXPECT_EQ(m.size(), 0);
}

TEST_F(MembershipTest, TopologyFactsAreKeptAndBounded) {
  Membership& m = Make({});
  v1::AgentInfo info = Agent("node-a");
  info.mutable_workers(0)->set_gpu(0);
  info.mutable_workers(0)->set_gpu_model("NVIDIA H200");
  info.mutable_workers(0)->set_pci_bus_id("00000000:18:00.0");
  info.mutable_workers(0)->add_nvlink_peers(1);
  v1::NicInfo* nic = info.add_nics();
  nic->set_name("ib0");
  nic->set_kind("infiniband");
  nic->set_state("up");
  nic->set_speed_bits_per_second(400'000'000'000);
  ASSERT_TRUE(m.Register(info).ok());
  ASSERT_EQ(m.List().size(), 1u);
  EXPECT_EQ(m.List()[0].nics(0).name(), "ib0");
  EXPECT_EQ(m.List()[0].workers(0).gpu_model(), "NVIDIA H200");

  const auto refused = [&](const v1::AgentInfo& bad) {
    return std::string(m.Register(bad).status().message());
  };
  v1::AgentInfo bad = info;
  bad.mutable_workers(0)->set_gpu_model(std::string(65, 'm'));
  EXPECT_THAT(refused(bad), HasSubstr("workers[0].gpu_model: 'mmm"));
  bad = info;
  bad.mutable_workers(0)->set_pci_bus_id("00000000:18:00.0\n");
  EXPECT_THAT(refused(bad), HasSubstr("workers[0].pci_bus_id"));
  bad = info;
  for (int i = 0; i < 33; ++i) bad.mutable_workers(0)->add_nvlink_peers(i);
  EXPECT_THAT(refused(bad),
              HasSubstr("workers[0].nvlink_peers: 34 listed; allowed: up to "
                        "32"));
  bad = info;
  bad.mutable_workers(0)->add_nvlink_peers(1024);
  EXPECT_THAT(refused(bad), HasSubstr("nvlink_peers: 1024 is not a GPU index"));
  bad = info;
  for (int i = 0; i < 16; ++i) *bad.add_nics() = *nic;
  EXPECT_THAT(refused(bad), HasSubstr("nics: 17 listed; allowed: up to 16"));
  bad = info;
  bad.mutable_nics(0)->set_name("");
  EXPECT_THAT(refused(bad), HasSubstr("nics[0].name"));
  bad = info;
  bad.mutable_nics(0)->set_kind("wifi");
  EXPECT_THAT(refused(bad),
              HasSubstr("nics[0].kind: 'wifi'; allowed: infiniband, "
                        "ethernet, other"));
  bad = info;
  bad.mutable_nics(0)->set_state("flapping");
  EXPECT_THAT(refused(bad), HasSubstr("nics[0].state"));
  bad = info;
  (*bad.mutable_labels())["rack"] = "r 1";
  EXPECT_THAT(refused(bad), HasSubstr("labels: value 'r 1' is not allowed"));
  bad = info;
  for (int i = 0; i < 17; ++i) {
    (*bad.mutable_labels())["k" + std::to_string(i)] = "v";
  }
  EXPECT_THAT(
      refused(bad),
      HasSubstr("labels: 17 labels is out of range; allowed: up to 16"));
  // A heartbeat's workers are held to the same bounds.
  auto id = m.Register(info);
  ASSERT_TRUE(id.ok());
  std::vector<v1::WorkerInfo> workers = Workers(info);
  workers[0].set_gpu_model(std::string(65, 'm'));
  EXPECT_THAT(
      std::string(m.Heartbeat(id->agent_id, workers).status().message()),
      HasSubstr("gpu_model"));
}

TEST_F(MembershipTest, HeartbeatsWithFakeWorkersAreRefusedAndKeepNoLease) {
  Membership& m = Make({});
  auto registered = m.Register(Agent("node-a", 2));
  ASSERT_TRUE(registered.ok());
  // 20,001 workers, all with busy GPUs.
  std::vector<v1::WorkerInfo> fake;
  for (int i = 0; i < 20001; ++i) {
    v1::WorkerInfo w;
    w.set_local_index(i);
    w.set_gpu(i);
    w.set_gpu_busy(true);
    w.set_gpu_other_processes(1);
    fake.push_back(w);
  }
  clock_.Advance(absl::Seconds(4));
  absl::StatusOr<Membership::HeartbeatAnswer> answer =
      m.Heartbeat(registered->agent_id, fake);
  ASSERT_EQ(answer.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(answer.status().message(),
              HasSubstr("node node-a: workers: 20001 listed; allowed: up to 2 "
                        "(the workers this agent registered with)"));
  // An index the agent did not register, within the count.
  std::vector<v1::WorkerInfo> shifted = Workers(Agent("node-a", 2));
  shifted[1].set_local_index(5);
  EXPECT_EQ(m.Heartbeat(registered->agent_id, shifted).status().code(),
            absl::StatusCode::kInvalidArgument);
  // Nothing changed: the workers are the registered ones, none busy, and
  // the refused heartbeats did not hold the lease.
  std::vector<v1::AgentInfo> agents = m.List();
  ASSERT_EQ(agents.size(), 1u);
  EXPECT_EQ(agents[0].workers_size(), 2);
  for (const auto& w : agents[0].workers()) EXPECT_FALSE(w.gpu_busy());
  clock_.Advance(absl::Seconds(2));
  EXPECT_EQ(m.CountByState().lost, 1);
}

TEST_F(MembershipTest, WorkersNotStartedYetAreAccepted) {
  Membership& m = Make({});
  v1::AgentInfo info = Agent("node-a", 2);
  info.mutable_workers(0)->set_pid(-1);  // the supervisor's "not running"
  info.mutable_workers(0)->set_incarnation("");
  EXPECT_TRUE(m.Register(info).ok());
  info.mutable_workers(1)->set_pid(-2);
  EXPECT_THAT(m.Register(info).status().message(),
              HasSubstr("workers[1]: gpu -1, pid -2"));
}

TEST_F(MembershipTest, BusyGpusOfRegisteredWorkersAreAccepted) {
  Membership& m = Make({});
  auto registered = m.Register(Agent("node-a", 2));
  ASSERT_TRUE(registered.ok());
  std::vector<v1::WorkerInfo> workers = Workers(Agent("node-a", 2));
  workers[1].set_gpu(1);
  workers[1].set_gpu_busy(true);
  ASSERT_TRUE(m.Heartbeat(registered->agent_id, workers).ok());
  EXPECT_TRUE(m.List()[0].workers(1).gpu_busy());
}

TEST_F(MembershipTest, AHugeAgentIdIsRefusedWithAShortMessage) {
  Membership& m = Make({});
  auto answer = m.Heartbeat(std::string(3 << 20, 'a'), {});
  ASSERT_EQ(answer.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_LT(answer.status().message().size(), 200u);
  auto unknown = m.Heartbeat("node-z-1-0000", {});
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kNotFound);
}

TEST_F(MembershipTest, RegistrationsPastTheBoundAreRefused) {
  Membership& m = Make({.max_agents = 3});
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(m.Register(Agent(absl::StrCat("node-", i))).ok());
  }
  const uint64_t epoch = m.epoch();
  auto refused = m.Register(Agent("node-3"));
  ASSERT_EQ(refused.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(refused.status().message(),
              HasSubstr("agents: 3 agents registered, the bound (config "
                        "agents.max: 3); node node-3 is refused"));
  EXPECT_EQ(m.size(), 3);
  EXPECT_EQ(m.epoch(), epoch);
  // A registered node registering again is no new entry.
  EXPECT_TRUE(m.Register(Agent("node-1")).ok());
}

TEST_F(MembershipTest, AFullTableForgetsTheLongestLostAgentToMakeRoom) {
  Membership& m = Make({.max_agents = 2});
  auto a = m.Register(Agent("node-a"));
  clock_.Advance(absl::Seconds(1));
  auto b = m.Register(Agent("node-b"));
  ASSERT_TRUE(a.ok() && b.ok());
  clock_.Advance(absl::Seconds(10));  // both lost; node-a longer
  ASSERT_EQ(m.CountByState().lost, 2);
  ASSERT_TRUE(m.Register(Agent("node-c")).ok());
  std::vector<std::string> names;
  for (const auto& info : m.List()) names.push_back(info.node_name());
  EXPECT_THAT(names, ::testing::ElementsAre("node-b", "node-c"));
}

TEST_F(MembershipTest, ListOfNodesHasThoseNodesOnly) {
  Membership& m = Make({});
  for (const char* node : {"node-a", "node-b", "node-c"}) {
    ASSERT_TRUE(m.Register(Agent(node)).ok());
  }
  ASSERT_TRUE(m.Reserve({"node-c"}, "sweep-1").ok());
  std::vector<std::string> names;
  std::vector<std::string> reserved;
  for (const auto& info : m.List({"node-c", "node-x", "node-a", "node-c"})) {
    names.push_back(info.node_name());
    reserved.push_back(info.reserved_sweep());
    EXPECT_EQ(info.state(), "alive");
  }
  // Sorted, each once, unknown names left out, as List() shows them.
  EXPECT_THAT(names, ::testing::ElementsAre("node-a", "node-c"));
  EXPECT_THAT(reserved, ::testing::ElementsAre("", "sweep-1"));
  EXPECT_EQ(m.List({}).size(), 3u);
}

TEST_F(MembershipTest, LostAgentsAreForgottenAfterTheRetention) {
  Membership& m = Make({.forget_lost_after = absl::Minutes(10)});
  ASSERT_TRUE(m.Register(Agent("node-a")).ok());
  ASSERT_TRUE(m.Register(Agent("node-b")).ok());
  ASSERT_TRUE(m.Reserve({"node-b"}, "sweep-1").ok());  // a sweep holds it
  clock_.Advance(absl::Minutes(9));
  EXPECT_EQ(m.CountByState().lost, 2);
  clock_.Advance(absl::Minutes(2));
  // Forgetting is lazy: housekeeping counts agents every second.
  EXPECT_EQ(m.CountByState().lost, 1);
  EXPECT_EQ(m.size(), 1);  // node-a forgotten, node-b held by the sweep
  m.Release({"node-b"});
  EXPECT_EQ(m.List().size(), 0u);
  EXPECT_EQ(m.size(), 0);
}

TEST_F(MembershipTest, TheRankBoundCountsEveryAgentsWorkers) {
  Membership& m = Make({.max_ranks = 4});
  ASSERT_TRUE(m.Register(Agent("node-a", 3)).ok());
  auto refused = m.Register(Agent("node-b", 2));
  ASSERT_EQ(refused.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(refused.status().message(),
              HasSubstr("workers: node node-b brings 2 ranks to the 3 "
                        "registered; allowed: up to 4 ranks"));
  EXPECT_TRUE(m.Register(Agent("node-b", 1)).ok());
  // Re-registering with fewer workers gives ranks back.
  EXPECT_TRUE(m.Register(Agent("node-a", 1)).ok());
  EXPECT_TRUE(m.Register(Agent("node-c", 2)).ok());
}

TEST_F(MembershipTest, ASecondLiveAgentWithTheNameIsRefused) {
  Membership& m = Make({});
  auto first = m.Register(Agent("node-b", 2, "first", "10.0.0.1:7071"));
  ASSERT_TRUE(first.ok());
  clock_.Advance(absl::Milliseconds(400));
  auto second = m.Register(Agent("node-b", 2, "second", "10.0.0.2:7071"));
  ASSERT_EQ(second.status().code(), absl::StatusCode::kAlreadyExists);
  const std::string message(second.status().message());
  EXPECT_THAT(message, HasSubstr("node node-b is held by a live agent at "
                                 "10.0.0.1:7071, which heartbeated 400ms "
                                 "ago"));
  // The holder's instance id is its process's secret: never told.
  EXPECT_THAT(message, Not(HasSubstr("first")));
  EXPECT_THAT(message, HasSubstr("10.0.0.2:7071 (instance second)"));
  // The holder is untouched: its id still heartbeats, the epoch is the same.
  const uint64_t epoch = m.epoch();
  EXPECT_TRUE(m.Heartbeat(first->agent_id, Workers(Agent("node-b"))).ok());
  EXPECT_EQ(m.epoch(), epoch);
  EXPECT_EQ(m.List()[0].address(), "10.0.0.1:7071");
}

TEST_F(MembershipTest, TheSameInstanceRegistersAgainAtOnce) {
  Membership& m = Make({});
  auto first = m.Register(Agent("node-b", 2, "one", "10.0.0.1:7071"));
  ASSERT_TRUE(first.ok());
  auto again = m.Register(Agent("node-b", 2, "one", "10.0.0.1:7071"));
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_NE(again->agent_id, first->agent_id);
}

TEST_F(MembershipTest, ARestartOnTheSameBootAndAddressTakesOverAtOnce) {
  Membership& m = Make({});
  ASSERT_TRUE(m.Register(Agent("node-b", 2, "old", "10.0.0.1:7071")).ok());
  // Same boot, same fixed port: the old process is gone.
  EXPECT_TRUE(m.Register(Agent("node-b", 2, "new", "10.0.0.1:7071")).ok());
  // Same boot, another port: two processes on one machine.
  EXPECT_EQ(
      m.Register(Agent("node-b", 2, "third", "10.0.0.1:7072")).status().code(),
      absl::StatusCode::kAlreadyExists);
}

// Issue 31, item 6: a boot id and an address are claims anyone with the
// node's certificate can make; a restart must also come from where the
// holder registered from.
TEST_F(MembershipTest, ARestartFromAnotherHostIsRefusedWhileTheHolderLives) {
  Membership& m = Make({});
  ASSERT_TRUE(
      m.Register(Agent("node-b", 2, "old", "10.0.0.1:7071"), "ipv4:10.0.0.1")
          .ok());
  EXPECT_EQ(
      m.Register(Agent("node-b", 2, "forged", "10.0.0.1:7071"), "ipv4:10.9.9.9")
          .status()
          .code(),
      absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(m.List()[0].instance_id(), "old");
  // Healthy opposite: the real restart, from the holder's host.
  EXPECT_TRUE(
      m.Register(Agent("node-b", 2, "new", "10.0.0.1:7071"), "ipv4:10.0.0.1")
          .ok());
  EXPECT_EQ(m.List()[0].instance_id(), "new");
}

TEST_F(MembershipTest, AnotherInstanceGetsTheNameOnceTheHolderIsLost) {
  Membership& m = Make({});
  ASSERT_TRUE(m.Register(Agent("node-b", 2, "old", "10.0.0.1:7071")).ok());
  clock_.Advance(absl::Seconds(5));  // within the 5 s lease
  EXPECT_EQ(
      m.Register(Agent("node-b", 2, "new", "10.0.0.2:7071")).status().code(),
      absl::StatusCode::kAlreadyExists);
  clock_.Advance(absl::Milliseconds(1));  // the lease ran out
  auto taken = m.Register(Agent("node-b", 2, "new", "10.0.0.2:7071"));
  ASSERT_TRUE(taken.ok()) << taken.status();
  EXPECT_EQ(m.List()[0].address(), "10.0.0.2:7071");
  EXPECT_EQ(m.List()[0].instance_id(), "new");
}

TEST_F(MembershipTest, UnknownNodesAreQuotedAndTheKnownListIsShort) {
  Membership& m = Make({});
  for (int i = 0; i < 50; ++i) {
    ASSERT_TRUE(m.Register(Agent(absl::StrCat("node-", i))).ok());
  }
  auto selected = m.Select({std::string(1000, 'q')});
  ASSERT_EQ(selected.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(selected.status().message(), HasSubstr("and 40 more"));
  EXPECT_LT(selected.status().message().size(), 300u);
}

}  // namespace
}  // namespace fabricpulse::coordinator
