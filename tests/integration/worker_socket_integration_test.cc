// The worker sockets against real processes (a coordinator, agents of 2
// Gloo ranks started here with their own run folder): private folders and
// sockets, only the agent is served, another user cannot even reach them,
// one agent per node name, and an agent killed with SIGKILL takes its
// workers with it and leaves nothing a restart does not clean up.
#include <grp.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "daemon/common/port_file.h"
#include "daemon/common/process.h"
#include "fabricpulse/v1/worker.grpc.pb.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "tests/integration/test_support.h"

namespace fabricpulse::testing {
namespace {

constexpr int kRanks = 2;
constexpr uid_t kNobody = 65534;

std::string Contents(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

mode_t ModeOf(const std::string& path) {
  struct stat st;
  if (lstat(path.c_str(), &st) != 0) return 0;
  return st.st_mode & 07777;
}

class WorkerSocketTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // Orphaned workers (their agent SIGKILLed) come to this process, so
    // their exit can be waited for and read.
    ASSERT_EQ(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
    cluster_ = StartCluster(1, 1);
    ASSERT_NE(cluster_, nullptr);
    stub_ = Connect(cluster_->coordinator());
    char tmpl[] = "/tmp/fp-worker-socket-test-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    base_ = tmpl;
    // Like /tmp: others may enter the base; only the agent's own 0700
    // folder keeps them out.
    ASSERT_EQ(chmod(base_.c_str(), 0755), 0);
  }
  void TearDown() override {
    for (pid_t pid : agents_) common::TerminateProcess(pid, absl::Seconds(5));
    if (!HasFailure()) std::filesystem::remove_all(base_);
  }

  std::string UidDir() const {
    return absl::StrCat(base_, "/fabricpulse-agent-", geteuid());
  }
  std::string NodeDir(const std::string& node) const {
    return absl::StrCat(UidDir(), "/", node);
  }
  std::string Log(const std::string& node) const {
    return absl::StrCat(base_, "/", node, ".log");
  }
  std::vector<std::string> Sockets(const std::string& node) const {
    std::vector<std::string> out;
    std::error_code ec;
    for (const auto& e :
         std::filesystem::directory_iterator(NodeDir(node), ec)) {
      if (e.path().extension() == ".sock") out.push_back(e.path().string());
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  // The agent's command line (argv[0] first), as the cluster's own, with
  // this test's run folder.
  std::vector<std::string> AgentArgv(const std::string& node,
                                     const std::string& port_file) const {
    std::vector<std::string> argv = cluster_->AgentArgv(node, port_file, base_);
    argv.insert(argv.end(), {"--ranks", absl::StrCat(kRanks)});
    return argv;
  }

  // Starts an agent of `node`; returns its pid and gRPC address once its
  // port file is written.
  std::pair<pid_t, std::string> StartAgent(const std::string& node) {
    const std::string ports =
        absl::StrCat(base_, "/", node, "-", ++started_, ".ports");
    common::SpawnOptions spawn;
    spawn.argv = AgentArgv(node, ports);
    spawn.log_file = Log(node);
    auto pid = common::Spawn(spawn);
    EXPECT_TRUE(pid.ok()) << pid.status();
    if (!pid.ok()) return {-1, ""};
    agents_.push_back(*pid);
    auto bound = common::WaitForPortFile(ports, absl::Seconds(20));
    EXPECT_TRUE(bound.ok()) << bound.status() << "\n" << Contents(Log(node));
    return {*pid, bound.ok() ? bound->grpc : ""};
  }

  // The node as the coordinator lists it, once it is registered from
  // `address` with every worker ready.
  std::optional<v1::AgentInfo> ReadyAgent(const std::string& node,
                                          const std::string& address) {
    for (const v1::AgentInfo& a : ListAgents(*stub_)) {
      if (a.node_name() != node || a.address() != address ||
          a.state() != "alive" || a.workers_size() != kRanks) {
        continue;
      }
      bool ready = true;
      for (const v1::WorkerInfo& w : a.workers()) ready = ready && w.ready();
      if (ready) return a;
    }
    return std::nullopt;
  }
  v1::AgentInfo WaitReady(const std::string& node, const std::string& address) {
    std::optional<v1::AgentInfo> info;
    EXPECT_TRUE(Eventually(
        [&] { return (info = ReadyAgent(node, address)).has_value(); },
        absl::Seconds(60)))
        << Contents(Log(node));
    return info.value_or(v1::AgentInfo());
  }

  void ExpectSweepPasses(const std::string& node) {
    SweepOutcome outcome = RunSweep(*stub_, QuickSpec({"all_reduce"}), {node});
    ASSERT_TRUE(outcome.status.ok()) << outcome.status;
    EXPECT_EQ(outcome.finished.status(), "succeeded");
    EXPECT_FALSE(outcome.results.empty());
  }

  std::unique_ptr<client::LocalCluster> cluster_;
  std::unique_ptr<v1::CoordinatorService::Stub> stub_;
  std::string base_;
  std::vector<pid_t> agents_;
  int started_ = 0;
};

TEST_F(WorkerSocketTest, FoldersAndSocketsArePrivate) {
  auto [pid, address] = StartAgent("sock-a");
  WaitReady("sock-a", address);
  EXPECT_EQ(ModeOf(UidDir()), 0700u);
  EXPECT_EQ(ModeOf(NodeDir("sock-a")), 0700u);
  const std::string lock = NodeDir("sock-a") + "/agent.lock";
  EXPECT_EQ(ModeOf(lock), 0600u);
  EXPECT_EQ(Contents(lock), absl::StrCat(pid, "\n"));
  const std::vector<std::string> sockets = Sockets("sock-a");
  ASSERT_EQ(sockets.size(), static_cast<size_t>(kRanks));
  for (const std::string& s : sockets) {
    struct stat st;
    ASSERT_EQ(lstat(s.c_str(), &st), 0) << s;
    EXPECT_TRUE(S_ISSOCK(st.st_mode)) << s;
    EXPECT_EQ(st.st_mode & 07777, 0600u) << s;
    EXPECT_EQ(st.st_uid, geteuid()) << s;
  }
}

TEST_F(WorkerSocketTest, OnlyTheAgentIsServed) {
  auto [pid, address] = StartAgent("sock-a");
  WaitReady("sock-a", address);
  const std::vector<std::string> sockets = Sockets("sock-a");
  ASSERT_FALSE(sockets.empty());
  // This process: same uid, but not the worker's agent.
  auto stub = v1::WorkerService::NewStub(grpc::CreateChannel(
      absl::StrCat("unix:", sockets[0]), grpc::InsecureChannelCredentials()));
  grpc::ClientContext ctx;
  ctx.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(5)));
  v1::PingResponse resp;
  grpc::Status ping = stub->Ping(&ctx, v1::PingRequest(), &resp);
  EXPECT_EQ(ping.error_code(), grpc::StatusCode::UNAVAILABLE)
      << ping.error_message();
  const std::string refused = absl::StrCat(
      "refused a connection on ", sockets[0], ": peer pid ", getpid(), " uid ",
      geteuid(), " is not this worker's agent (pid ", pid);
  EXPECT_TRUE(Eventually(
      [&] { return absl::StrContains(Contents(Log("sock-a")), refused); },
      absl::Seconds(10)))
      << Contents(Log("sock-a"));
  // The agent is still served, with no worker restarted.
  ExpectSweepPasses("sock-a");
  const v1::AgentInfo after = WaitReady("sock-a", address);
  for (const v1::WorkerInfo& w : after.workers()) {
    EXPECT_EQ(w.restarts(), 0);
  }
}

TEST_F(WorkerSocketTest, AnotherUserCannotReachTheSocket) {
  if (geteuid() != 0) {
    GTEST_SKIP() << "needs root to drop to uid nobody; the folder's 0700 "
                    "mode is checked in FoldersAndSocketsArePrivate";
  }
  auto [pid, address] = StartAgent("sock-a");
  WaitReady("sock-a", address);
  const std::vector<std::string> sockets = Sockets("sock-a");
  ASSERT_FALSE(sockets.empty());
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  ASSERT_LT(sockets[0].size(), sizeof(addr.sun_path));
  std::memcpy(addr.sun_path, sockets[0].data(), sockets[0].size());
  const std::string node_dir = NodeDir("sock-a");
  const std::string base = base_;
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // Only async-signal-safe calls here. Exit codes: 10 + which step
    // failed to be refused, 3 could not drop to nobody, 0 all refused with
    // EACCES.
    if (setgroups(0, nullptr) != 0 || setgid(kNobody) != 0 ||
        setuid(kNobody) != 0) {
      _exit(3);
    }
    struct stat st;
    if (stat(base.c_str(), &st) != 0) _exit(4);  // the base is reachable
    if (stat(node_dir.c_str(), &st) == 0 || errno != EACCES) _exit(11);
    const int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0) _exit(5);
    if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 ||
        errno != EACCES) {
      _exit(12);
    }
    _exit(0);
  }
  auto exit = common::WaitForExit(child, absl::Seconds(10));
  ASSERT_TRUE(exit.has_value());
  EXPECT_EQ(exit->exit_code, 0) << exit->Describe();
  ExpectSweepPasses("sock-a");
}

TEST_F(WorkerSocketTest, SecondAgentOfTheNodeIsRefusedAndTheFirstWorks) {
  auto [pid, address] = StartAgent("sock-a");
  WaitReady("sock-a", address);
  const std::vector<std::string> sockets = Sockets("sock-a");
  const absl::Time start = absl::Now();
  const std::vector<std::string> argv =
      AgentArgv("sock-a", absl::StrCat(base_, "/second.ports"));
  CliResult second =
      RunBinary("fabricpulse-agent", {argv.begin() + 1, argv.end()}, 30);
  EXPECT_LT(absl::Now() - start, absl::Seconds(10));  // refused at once
  EXPECT_EQ(second.exit_code, 2);
  EXPECT_TRUE(absl::StrContains(
      second.err,
      absl::StrCat("fabricpulse-agent: another fabricpulse-agent (pid ", pid,
                   ") already runs node 'sock-a' from this run "
                   "folder (",
                   NodeDir("sock-a"),
                   "/agent.lock is locked); stop it, or give this agent "
                   "another --node-name or --run-dir\n")))
      << second.err;
  EXPECT_FALSE(std::filesystem::exists(base_ + "/second.ports"));
  // The first is untouched and keeps working.
  EXPECT_EQ(Sockets("sock-a"), sockets);
  EXPECT_EQ(Contents(NodeDir("sock-a") + "/agent.lock"),
            absl::StrCat(pid, "\n"));
  ExpectSweepPasses("sock-a");
  EXPECT_EQ(WaitReady("sock-a", address).address(), address);
}

TEST_F(WorkerSocketTest, KilledAgentTakesItsWorkersAndARestartCleansUp) {
  auto [pid, address] = StartAgent("sock-a");
  const v1::AgentInfo first = WaitReady("sock-a", address);
  const std::vector<std::string> old_sockets = Sockets("sock-a");
  ASSERT_EQ(old_sockets.size(), static_cast<size_t>(kRanks));
  std::vector<pid_t> workers;
  for (const v1::WorkerInfo& w : first.workers()) workers.push_back(w.pid());
  ASSERT_EQ(workers.size(), static_cast<size_t>(kRanks));

  ASSERT_EQ(kill(pid, SIGKILL), 0);
  auto agent_exit = common::WaitForExit(pid, absl::Seconds(10));
  ASSERT_TRUE(agent_exit.has_value());
  EXPECT_EQ(agent_exit->signal, SIGKILL);
  agents_.erase(std::find(agents_.begin(), agents_.end(), pid));
  // PR_SET_PDEATHSIG: each worker gets SIGTERM and shuts down cleanly.
  for (pid_t w : workers) {
    auto exit = common::WaitForExit(w, absl::Seconds(10));
    ASSERT_TRUE(exit.has_value()) << "worker " << w << " outlived its agent";
    EXPECT_EQ(exit->exit_code, 0) << exit->Describe();
  }
  // The killed agent's folder and lock file remain; a socket file of a
  // worker that died without cleaning up stays too (planted here, as a
  // SIGKILLed worker would leave it).
  ASSERT_TRUE(std::filesystem::exists(NodeDir("sock-a") + "/agent.lock"));
  const std::string planted = NodeDir("sock-a") + "/worker-0.deadbeef.sock";
  ASSERT_EQ(mknod(planted.c_str(), S_IFSOCK | 0600, 0), 0);

  auto [again, new_address] = StartAgent("sock-a");
  WaitReady("sock-a", new_address);
  EXPECT_TRUE(
      absl::StrContains(Contents(Log("sock-a")),
                        absl::StrCat("run folder ", NodeDir("sock-a"),
                                     ": the previous agent "
                                     "(pid ",
                                     pid,
                                     ") did not exit cleanly; removed 1 stale "
                                     "entry")))
      << Contents(Log("sock-a"));
  EXPECT_FALSE(std::filesystem::exists(planted));
  const std::vector<std::string> new_sockets = Sockets("sock-a");
  EXPECT_EQ(new_sockets.size(), static_cast<size_t>(kRanks));
  for (const std::string& s : old_sockets) {
    EXPECT_FALSE(std::filesystem::exists(s)) << s;
  }
  EXPECT_EQ(Contents(NodeDir("sock-a") + "/agent.lock"),
            absl::StrCat(again, "\n"));
  ExpectSweepPasses("sock-a");

  // A clean exit removes everything.
  auto clean = common::TerminateProcess(again, absl::Seconds(10));
  agents_.clear();
  ASSERT_TRUE(clean.has_value());
  EXPECT_EQ(clean->exit_code, 0) << clean->Describe();
  EXPECT_FALSE(std::filesystem::exists(NodeDir("sock-a")));
  EXPECT_FALSE(std::filesystem::exists(UidDir()));
}

// A worker stopped (SIGSTOP) when its agent is killed cannot act on the
// SIGTERM that death sends it: the restarted agent names it, works beside
// it, and once continued it exits without touching the new sockets.
TEST_F(WorkerSocketTest, StoppedWorkerOfAKilledAgentIsNamedAndExitsLater) {
  auto [pid, address] = StartAgent("sock-a");
  const v1::AgentInfo first = WaitReady("sock-a", address);
  ASSERT_EQ(first.workers_size(), kRanks);
  const pid_t stopped = first.workers(0).pid();
  const pid_t other = first.workers(1).pid();
  ASSERT_GT(stopped, 0);
  ASSERT_GT(other, 0);
  ASSERT_EQ(kill(stopped, SIGSTOP), 0);
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  ASSERT_TRUE(common::WaitForExit(pid, absl::Seconds(10)).has_value());
  agents_.clear();
  ASSERT_TRUE(common::WaitForExit(other, absl::Seconds(10)).has_value());

  auto [again, new_address] = StartAgent("sock-a");
  WaitReady("sock-a", new_address);
  EXPECT_TRUE(absl::StrContains(
      Contents(Log("sock-a")),
      absl::StrCat("a worker of the previous agent (pid ", stopped, ", uid ",
                   geteuid(), ") still listens on ", NodeDir("sock-a"),
                   "/worker-0.")))
      << Contents(Log("sock-a"));
  const std::vector<std::string> sockets = Sockets("sock-a");
  ASSERT_EQ(sockets.size(), static_cast<size_t>(kRanks));
  ASSERT_EQ(kill(stopped, SIGCONT), 0);
  auto exit = common::WaitForExit(stopped, absl::Seconds(10));
  ASSERT_TRUE(exit.has_value());
  EXPECT_EQ(exit->exit_code, 0) << exit->Describe();
  EXPECT_EQ(Sockets("sock-a"), sockets);  // the new agent's, untouched
  ExpectSweepPasses("sock-a");
}

}  // namespace
}  // namespace fabricpulse::testing
