// Single instance, start and stop of the real daemons: a second coordinator
// on a state directory in use, or a second daemon on a port in use, is
// refused at once; `--ranks 0` is refused; config files must be regular
// files of bounded size (/dev/zero and a FIFO are refused at once); a
// signal ends a startup that is stuck.
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "daemon/common/port_file.h"
#include "daemon/common/process.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/test_support.h"

namespace fabricpulse::testing {
namespace {

using ::testing::HasSubstr;

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class LifecycleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string templ = ::testing::TempDir() + "lifecycle_test.XXXXXX";
    ASSERT_NE(mkdtemp(templ.data()), nullptr);
    dir_ = templ;
  }
  void TearDown() override {
    for (pid_t pid : pids_) common::TerminateProcess(pid, absl::Seconds(5));
    std::filesystem::remove_all(dir_);
  }

  // Starts a coordinator on `state_dir` (ports :0) whose output goes to
  // `log`; the pid, or -1.
  pid_t SpawnCoordinator(const std::string& state_dir, const std::string& log,
                         const std::string& port_file,
                         std::vector<std::string> extra = {}) {
    common::SpawnOptions options;
    options.argv = {BinDir() + "/fabricpulse-coordinator",
                    "--listen",
                    "127.0.0.1:0",
                    "--metrics-listen",
                    "127.0.0.1:0",
                    "--state-dir",
                    state_dir,
                    "--port-file",
                    port_file,
                    "--insecure"};
    options.argv.insert(options.argv.end(), extra.begin(), extra.end());
    options.log_file = log;
    auto pid = common::Spawn(options);
    EXPECT_TRUE(pid.ok()) << pid.status();
    if (!pid.ok()) return -1;
    pids_.push_back(*pid);
    return *pid;
  }
  // A coordinator that is up: its pid and bound ports.
  struct Running {
    pid_t pid = -1;
    common::BoundPorts ports;
  };
  // Its state directory is "<name>-state" (or "<state>-state").
  Running StartCoordinator(const std::string& name,
                           std::vector<std::string> extra = {},
                           const std::string& state = "") {
    Running r;
    const std::string port_file = absl::StrCat(dir_, "/", name, ".ports");
    r.pid = SpawnCoordinator(
        absl::StrCat(dir_, "/", state.empty() ? name : state, "-state"),
        absl::StrCat(dir_, "/", name, ".log"), port_file, std::move(extra));
    auto ports = common::WaitForPortFile(port_file, absl::Seconds(30));
    EXPECT_TRUE(ports.ok()) << ports.status() << "\n"
                            << ReadAll(absl::StrCat(dir_, "/", name, ".log"));
    if (ports.ok()) r.ports = *ports;
    return r;
  }
  // Runs the coordinator to its end (bounded) with `args`.
  // Plaintext throughout: these tests are about processes, not TLS.
  CliResult RunCoordinator(std::vector<std::string> args) {
    args.push_back("--insecure");
    return RunBinary("fabricpulse-coordinator", args, 30);
  }

  std::string dir_;
  std::vector<pid_t> pids_;
};

TEST_F(LifecycleTest, ASecondCoordinatorOnAStateDirInUseIsRefusedAtOnce) {
  const Running first = StartCoordinator("a");
  ASSERT_GT(first.pid, 0);
  const absl::Time start = absl::Now();
  CliResult second =
      RunCoordinator({"--listen", "127.0.0.1:0", "--metrics-listen",
                      "127.0.0.1:0", "--state-dir", dir_ + "/a-state"});
  EXPECT_LT(absl::Now() - start, absl::Seconds(10));
  EXPECT_EQ(second.exit_code, 2) << second.err;
  EXPECT_THAT(second.err,
              HasSubstr(absl::StrCat("--state-dir: '", dir_,
                                     "/a-state' is in use by another "
                                     "fabricpulse-coordinator (pid ",
                                     first.pid, ")")));
  // Silent case: once the first has stopped, the directory is free.
  auto exit = common::TerminateProcess(first.pid, absl::Seconds(10));
  ASSERT_TRUE(exit.has_value());
  EXPECT_EQ(exit->exit_code, 0) << exit->Describe();
  const Running again = StartCoordinator("a");
  EXPECT_FALSE(again.ports.grpc.empty());
}

TEST_F(LifecycleTest, ASecondDaemonOnAPortInUseCannotListen) {
  const Running first = StartCoordinator("a");
  ASSERT_FALSE(first.ports.grpc.empty());
  CliResult grpc =
      RunCoordinator({"--listen", first.ports.grpc, "--metrics-listen",
                      "127.0.0.1:0", "--state-dir", dir_ + "/b-state"});
  EXPECT_EQ(grpc.exit_code, 2) << grpc.err;
  EXPECT_THAT(grpc.err,
              HasSubstr("--listen: cannot listen on " + first.ports.grpc));
  CliResult metrics =
      RunCoordinator({"--listen", "127.0.0.1:0", "--metrics-listen",
                      first.ports.metrics, "--state-dir", dir_ + "/c-state"});
  EXPECT_EQ(metrics.exit_code, 2) << metrics.err;
  EXPECT_THAT(metrics.err,
              HasSubstr("cannot listen on " + first.ports.metrics));
  CliResult agent =
      RunBinary("fabricpulse-agent",
                {"--coordinator", first.ports.grpc, "--listen",
                 first.ports.grpc, "--metrics-listen", "127.0.0.1:0",
                 "--backend", "gloo", "--node-name", "node-x", "--insecure"},
                30);
  EXPECT_EQ(agent.exit_code, 2) << agent.err;
  EXPECT_THAT(agent.err,
              HasSubstr("--listen: cannot listen on " + first.ports.grpc));
}

TEST_F(LifecycleTest, AgentRanksOutOfRangeAreRefused) {
  for (const char* ranks : {"0", "513"}) {
    CliResult agent =
        RunBinary("fabricpulse-agent",
                  {"--coordinator", "127.0.0.1:1", "--listen", "127.0.0.1:0",
                   "--metrics-listen", "127.0.0.1:0", "--backend", "gloo",
                   "--ranks", ranks, "--insecure"},
                  30);
    EXPECT_EQ(agent.exit_code, 2) << agent.err;
    EXPECT_THAT(agent.err,
                HasSubstr(absl::StrCat("--ranks: ", ranks,
                                       " is out of range; allowed: 1 to 512")));
  }
}

TEST_F(LifecycleTest, ABadGrpcCpuCountIsRefusedByBothDaemons) {
  for (const char* value : {"0", "1025", "many"}) {
    setenv("FABRICPULSE_GRPC_CPUS", value, 1);
    CliResult coordinator =
        RunCoordinator({"--listen", "127.0.0.1:0", "--metrics-listen",
                        "127.0.0.1:0", "--state-dir", dir_ + "/c-state"});
    CliResult agent = RunBinary(
        "fabricpulse-agent",
        {"--coordinator", "127.0.0.1:1", "--listen", "127.0.0.1:0",
         "--metrics-listen", "127.0.0.1:0", "--backend", "gloo", "--insecure"},
        30);
    unsetenv("FABRICPULSE_GRPC_CPUS");
    const std::string error =
        absl::StrCat("FABRICPULSE_GRPC_CPUS: '", value,
                     "' is not a CPU count; allowed: 1 to 1024");
    EXPECT_EQ(coordinator.exit_code, 2) << coordinator.err;
    EXPECT_THAT(coordinator.err, HasSubstr(error));
    EXPECT_EQ(agent.exit_code, 2) << agent.err;
    EXPECT_THAT(agent.err, HasSubstr(error));
  }
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/c-state"));
}

TEST_F(LifecycleTest, ConfigMustBeARegularFileOfBoundedSize) {
  const std::string fifo = dir_ + "/config.fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const std::string big = dir_ + "/big.yaml";
  std::ofstream(big) << std::string((1 << 20) + 1, '#');
  struct Case {
    std::string file;
    std::string error;
  };
  for (const Case& c :
       {Case{"/dev/zero", "Is a character device; a regular file is required"},
        Case{fifo, "Is a FIFO; a regular file is required"},
        Case{big, "1048577 bytes is larger than the bound of 1048576 bytes"}}) {
    const absl::Time start = absl::Now();
    CliResult result = RunCoordinator(
        {"--listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0",
         "--state-dir", dir_ + "/state", "--config", c.file});
    EXPECT_LT(absl::Now() - start, absl::Seconds(10)) << c.file;
    EXPECT_EQ(result.exit_code, 2) << c.file << ": " << result.err;
    EXPECT_THAT(result.err, HasSubstr(absl::StrCat("--config ", c.file,
                                                   ": config: cannot read '",
                                                   c.file, "': ", c.error)));
  }
  // Silent case: a regular config file starts.
  const std::string good = dir_ + "/good.yaml";
  std::ofstream(good) << "plans:\n  quick:\n    ops: [all_reduce]\n";
  const Running ok = StartCoordinator("good", {"--config", good});
  EXPECT_FALSE(ok.ports.grpc.empty());
}

TEST_F(LifecycleTest, SigtermEndsAStuckStartupWithinASecond) {
  // The port file is written through "<file>.tmp": a FIFO there, which
  // nobody reads, blocks the coordinator's startup in open() for good.
  const std::string port_file = dir_ + "/stuck.ports";
  ASSERT_EQ(mkfifo((port_file + ".tmp").c_str(), 0600), 0);
  const std::string log = dir_ + "/stuck.log";
  const pid_t pid = SpawnCoordinator(dir_ + "/stuck-state", log, port_file);
  ASSERT_GT(pid, 0);
  // It logs "listening on" just before it writes the port file.
  ASSERT_TRUE(Eventually(
      [&] { return ReadAll(log).find("listening on") != std::string::npos; },
      absl::Seconds(30)))
      << ReadAll(log);
  const absl::Time signalled = absl::Now();
  ASSERT_EQ(kill(pid, SIGTERM), 0);
  auto exit = common::WaitForExit(pid, absl::Seconds(10));
  ASSERT_TRUE(exit.has_value()) << "still stuck: " << ReadAll(log);
  const absl::Duration took = absl::Now() - signalled;
  std::printf("stuck startup ended %s in %s\n", exit->Describe().c_str(),
              absl::FormatDuration(took).c_str());
  EXPECT_LT(took, absl::Seconds(1));
  EXPECT_EQ(exit->exit_code, 128 + SIGTERM);
  EXPECT_THAT(ReadAll(log),
              HasSubstr("fabricpulse-coordinator: Terminated during startup; "
                        "exiting"));
  // Its state directory is free again at once.
  const Running next = StartCoordinator("next", {}, "stuck");
  EXPECT_FALSE(next.ports.grpc.empty());
}

}  // namespace
}  // namespace fabricpulse::testing
