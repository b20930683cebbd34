// Two agents with one node name, on real processes: the second is refused
// (ALREADY_EXISTS, naming the node, the holder's address and its last
// heartbeat), both logs say so once, the first keeps its place and its
// sweeps; once the first dies the second takes the name after the lease;
// a restart on the same address takes it at once.
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "daemon/common/port_file.h"
#include "daemon/common/process.h"
#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "tests/integration/test_support.h"

namespace fabricpulse::testing {
namespace {

using ::testing::HasSubstr;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

int Count(const std::string& text, const std::string& needle) {
  int n = 0;
  for (size_t at = text.find(needle); at != std::string::npos;
       at = text.find(needle, at + 1)) {
    n++;
  }
  return n;
}

uint64_t Refused(v1::CoordinatorService::Stub& stub) {
  grpc::ClientContext ctx;
  ctx.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(5)));
  v1::CoordinatorStatsResponse resp;
  EXPECT_TRUE(stub.Stats(&ctx, v1::CoordinatorStatsRequest(), &resp).ok());
  return resp.registrations_refused();
}

struct Agent {
  pid_t pid = -1;
  std::string log;
  std::string ports;
};

class DuplicateNodeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cluster_ = StartCluster(1, 2);
    ASSERT_NE(cluster_, nullptr);
    stub_ = Connect(cluster_->coordinator());
  }
  void TearDown() override {
    for (const Agent& a : extra_) {
      common::TerminateProcess(a.pid, absl::Seconds(5));
    }
    cluster_.reset();
  }
  // Another fabricpulse-agent named local-0, listening on `listen`.
  Agent StartAgent(const std::string& listen) {
    Agent agent;
    const int n = static_cast<int>(extra_.size());
    agent.log = absl::StrCat(cluster_->dir(), "/extra-", n, ".log");
    agent.ports = absl::StrCat(cluster_->dir(), "/extra-", n, ".ports");
    // A run folder of its own: the socket lock there is per host, and this
    // test is about the coordinator's refusal.
    const std::string run_dir = absl::StrCat(cluster_->dir(), "/extra-", n);
    mkdir(run_dir.c_str(), 0700);
    common::SpawnOptions spawn;
    spawn.argv = cluster_->AgentArgv("local-0", agent.ports, run_dir);
    for (size_t i = 0; i + 1 < spawn.argv.size(); ++i) {
      if (spawn.argv[i] == "--listen") spawn.argv[i + 1] = listen;
    }
    spawn.argv.insert(spawn.argv.end(), {"--ranks", "2"});
    spawn.log_file = agent.log;
    auto pid = common::Spawn(spawn);
    EXPECT_TRUE(pid.ok()) << pid.status();
    agent.pid = pid.ok() ? *pid : -1;
    extra_.push_back(agent);
    return agent;
  }
  v1::AgentInfo Node() {
    std::vector<v1::AgentInfo> agents = ListAgents(*stub_);
    EXPECT_EQ(agents.size(), 1u);
    return agents.empty() ? v1::AgentInfo() : agents[0];
  }
  bool Sweeps() {
    SweepOutcome outcome =
        RunSweep(*stub_, QuickSpec({"all_reduce"}, 1024), {"local-0"});
    return outcome.status.ok() && outcome.finished.status() == "succeeded";
  }
  std::string CoordinatorLog() {
    return ReadFile(cluster_->dir() + "/coordinator.log");
  }

  std::unique_ptr<client::LocalCluster> cluster_;
  std::unique_ptr<v1::CoordinatorService::Stub> stub_;
  std::vector<Agent> extra_;
};

TEST_F(DuplicateNodeTest, ASecondLiveAgentIsRefusedInBothLogsOnce) {
  const v1::AgentInfo holder = Node();
  grpc::ClientContext ctx;
  v1::ListAgentsResponse before;
  ASSERT_TRUE(stub_->ListAgents(&ctx, v1::ListAgentsRequest(), &before).ok());
  const uint64_t refused_before = Refused(*stub_);

  const Agent second = StartAgent("127.0.0.1:0");
  // Three refusals (1 s and 2 s of backoff between them): it keeps trying.
  ASSERT_TRUE(Eventually([&] { return Refused(*stub_) >= refused_before + 3; },
                         absl::Seconds(30)));
  const std::string second_log = ReadFile(second.log);
  EXPECT_EQ(Count(second_log, "refuses to register"), 1) << second_log;
  EXPECT_THAT(second_log, HasSubstr("(ALREADY_EXISTS): node_name: node "
                                    "local-0 is held by a live agent at " +
                                    holder.address()));
  EXPECT_THAT(second_log, HasSubstr("which heartbeated"));
  const std::string coordinator_log = CoordinatorLog();
  EXPECT_EQ(Count(coordinator_log, "register refused: node_name: node local-0"),
            1)
      << coordinator_log;
  // The holder is untouched: same address, same id, same epoch; it sweeps.
  const v1::AgentInfo now = Node();
  EXPECT_EQ(now.address(), holder.address());
  EXPECT_EQ(now.agent_id(), holder.agent_id());
  EXPECT_EQ(now.state(), "alive");
  grpc::ClientContext ctx2;
  v1::ListAgentsResponse after;
  ASSERT_TRUE(stub_->ListAgents(&ctx2, v1::ListAgentsRequest(), &after).ok());
  EXPECT_EQ(after.membership_epoch(), before.membership_epoch());
  EXPECT_TRUE(Sweeps());
  // The holder's log never saw a re-registration.
  const std::string holder_log = ReadFile(cluster_->dir() + "/agent-0.log");
  EXPECT_EQ(Count(holder_log, "registering again"), 0) << holder_log;
}

TEST_F(DuplicateNodeTest, TheNameGoesToTheSecondOnceTheFirstIsDead) {
  const v1::AgentInfo holder = Node();
  const Agent second = StartAgent("127.0.0.1:0");
  ASSERT_TRUE(Eventually(
      [&] { return absl::StrContains(ReadFile(second.log), "refuses"); },
      absl::Seconds(30)));
  auto second_ports = common::WaitForPortFile(second.ports, absl::Seconds(20));
  ASSERT_TRUE(second_ports.ok());
  // SIGKILL: its heartbeats stop, the lease (5 s) runs out, the second
  // agent's next try (at most 5 s later) gets the name.
  kill(cluster_->agent_pids()[0], SIGKILL);
  const absl::Time killed = absl::Now();
  ASSERT_TRUE(Eventually(
      [&] {
        const v1::AgentInfo n = Node();
        return n.address() == second_ports->grpc && n.state() == "alive" &&
               n.workers_size() == 2 && n.workers(0).ready() &&
               n.workers(1).ready();
      },
      absl::Seconds(30)));
  RecordProperty(
      "takeover_ms",
      static_cast<int>(absl::ToInt64Milliseconds(absl::Now() - killed)));
  // The agent logs it once the coordinator's answer is back, which can be
  // after the listing above already shows it.
  EXPECT_TRUE(Eventually(
      [&] {
        return absl::StrContains(ReadFile(second.log),
                                 "registration accepted after");
      },
      absl::Seconds(10)))
      << ReadFile(second.log);
  EXPECT_TRUE(Sweeps());
}

TEST_F(DuplicateNodeTest, ARestartOnTheSameAddressTakesTheNameAtOnce) {
  const v1::AgentInfo holder = Node();
  // The holder dies and a new process starts on its address at once: the
  // same boot of the same machine, a port only one process can hold, so
  // the coordinator lets it in without waiting for the lease.
  kill(cluster_->agent_pids()[0], SIGKILL);
  // Dead (its port free), but not reaped: the cluster reaps it at the end.
  siginfo_t info;
  ASSERT_EQ(waitid(P_PID, cluster_->agent_pids()[0], &info, WEXITED | WNOWAIT),
            0);
  const Agent restarted = StartAgent(holder.address());
  ASSERT_TRUE(Eventually(
      [&] {
        return absl::StrContains(ReadFile(restarted.log), "registered as");
      },
      absl::Seconds(30)));
  EXPECT_THAT(ReadFile(restarted.log), ::testing::Not(HasSubstr("refuses")));
  ASSERT_TRUE(Eventually(
      [&] {
        const v1::AgentInfo n = Node();
        return n.agent_id() != holder.agent_id() && n.state() == "alive" &&
               n.workers_size() == 2 && n.workers(0).ready() &&
               n.workers(1).ready();
      },
      absl::Seconds(30)));
  EXPECT_TRUE(Sweeps());
}

}  // namespace
}  // namespace fabricpulse::testing
