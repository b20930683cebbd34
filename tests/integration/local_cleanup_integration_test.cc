// `fabricpulse local` leaves nothing behind (issue 16, item 6): its
// temporary folder and every daemon and worker it started are gone after a
// closed stdout (SIGPIPE, `| head`) and after SIGTERM; with
// FABRICPULSE_KEEP_LOCAL_DIR=1 it says where the kept folder is; and a bad
// flag is refused before anything starts.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "daemon/common/process.h"
#include "gtest/gtest.h"
#include "tests/integration/process_tree.h"
#include "tests/integration/test_support.h"

namespace fabricpulse::testing {
namespace {

// A sweep long enough to be running when the test acts on it: 2 ranks,
// 8 B to 16 MiB, both placements, 40 printed rows.
const std::vector<std::string> kLongSweep = {"local", "sweep",   "--max-bytes",
                                             "16M",   "--iters", "20"};

// The CLI running, its stdout a pipe this test reads, its stderr a file.
struct RunningCli {
  pid_t pid = -1;
  int out = -1;
  std::string err_file;
};

RunningCli StartCli(const std::vector<std::string>& args,
                    const std::string& err_file) {
  RunningCli cli;
  cli.err_file = err_file;
  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) return cli;
  std::vector<std::string> argv = {BinDir() + "/fabricpulse"};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> ptrs;
  for (std::string& a : argv) ptrs.push_back(a.data());
  ptrs.push_back(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    signal(SIGPIPE, SIG_DFL);
    const int err = open(err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(out[1], STDOUT_FILENO);
    if (err >= 0) dup2(err, STDERR_FILENO);
    execv(ptrs[0], ptrs.data());
    _exit(127);
  }
  close(out[1]);
  cli.pid = pid;
  cli.out = out[0];
  return cli;
}

// Reads `fd` until a whole line came; false at EOF or after `timeout`.
bool ReadFirstLine(int fd, absl::Duration timeout, std::string& text) {
  const absl::Time deadline = absl::Now() + timeout;
  char buf[4096];
  while (text.find('\n') == std::string::npos) {
    const absl::Duration left = deadline - absl::Now();
    if (left <= absl::ZeroDuration()) return false;
    pollfd readable = {fd, POLLIN, 0};
    if (poll(&readable, 1,
             static_cast<int>(absl::ToInt64Milliseconds(left)) + 1) <= 0) {
      continue;
    }
    const ssize_t n = read(fd, buf, sizeof(buf));
    if (n <= 0) return false;
    text.append(buf, n);
  }
  return true;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)),
                     std::istreambuf_iterator<char>());
}

// What `fabricpulse local` started: its folder (the coordinator's
// --state-dir's parent) and every process under the CLI.
struct LocalTree {
  std::string dir;
  std::vector<pid_t> pids;
  int workers = 0;
};

LocalTree Observe(pid_t cli) {
  LocalTree tree;
  tree.pids = Descendants(cli);
  for (pid_t pid : tree.pids) {
    const std::vector<std::string> argv = CommandLine(pid);
    if (argv.empty()) continue;
    if (absl::EndsWith(argv[0], "/fabricpulse-coordinator")) {
      tree.dir = std::filesystem::path(FlagValue(pid, "--state-dir"))
                     .parent_path()
                     .string();
    }
    if (absl::EndsWith(argv[0], "/fabricpulse-worker")) ++tree.workers;
  }
  return tree;
}

// Checks that the folder and every process are gone; kills (by pid) what
// survived, so that a failure leaves nothing running either.
void ExpectCleanedUp(const LocalTree& tree) {
  EXPECT_FALSE(std::filesystem::exists(tree.dir)) << tree.dir;
  const bool all_gone = Eventually(
      [&tree] {
        for (pid_t pid : tree.pids) {
          if (!ProcessGone(pid)) return false;
        }
        return true;
      },
      absl::Seconds(15));
  EXPECT_TRUE(all_gone);
  for (pid_t pid : tree.pids) {
    if (ProcessGone(pid)) continue;
    ADD_FAILURE() << "survived: pid " << pid << " "
                  << absl::StrJoin(CommandLine(pid), " ");
    kill(pid, SIGKILL);
  }
  std::error_code ec;
  if (!tree.dir.empty()) std::filesystem::remove_all(tree.dir, ec);
}

class LocalCleanupTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char dir[] = "/tmp/fp-local-cleanup-test-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    scratch_ = dir;
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(scratch_, ec);
  }
  // Starts the long sweep and waits for its first line (the cluster is up
  // and the sweep running); fills `tree`.
  RunningCli StartSweep(LocalTree& tree) {
    RunningCli cli = StartCli(kLongSweep, scratch_ + "/stderr");
    EXPECT_GT(cli.pid, 0);
    std::string first;
    EXPECT_TRUE(ReadFirstLine(cli.out, absl::Seconds(120), first))
        << ReadFile(cli.err_file);
    EXPECT_TRUE(absl::StartsWith(first, "# fabricpulse sweep")) << first;
    tree = Observe(cli.pid);
    EXPECT_FALSE(tree.dir.empty());
    EXPECT_TRUE(std::filesystem::exists(tree.dir)) << tree.dir;
    EXPECT_EQ(tree.workers, 2);
    return cli;
  }
  std::string scratch_;
};

TEST_F(LocalCleanupTest, AClosedStdoutStopsEverythingAndRemovesTheFolder) {
  LocalTree tree;
  RunningCli cli = StartSweep(tree);
  ASSERT_GT(cli.pid, 0);
  close(cli.out);  // as `| head -1` does: the next row gets SIGPIPE
  std::optional<common::ExitInfo> exit =
      common::WaitForExit(cli.pid, absl::Seconds(60));
  ASSERT_TRUE(exit.has_value());
  EXPECT_EQ(exit->exit_code, 128 + SIGPIPE) << exit->Describe();
  // Quiet: the reader went on purpose.
  EXPECT_EQ(ReadFile(cli.err_file), "");
  ExpectCleanedUp(tree);
}

TEST_F(LocalCleanupTest, SigtermStopsEverythingAndRemovesTheFolder) {
  LocalTree tree;
  RunningCli cli = StartSweep(tree);
  ASSERT_GT(cli.pid, 0);
  ASSERT_EQ(kill(cli.pid, SIGTERM), 0);
  std::optional<common::ExitInfo> exit =
      common::WaitForExit(cli.pid, absl::Seconds(60));
  close(cli.out);
  ASSERT_TRUE(exit.has_value());
  EXPECT_EQ(exit->exit_code, 128 + SIGTERM) << exit->Describe();
  // One line, and nothing of the sweep its teardown interrupted.
  EXPECT_EQ(ReadFile(cli.err_file),
            "fabricpulse: local: Terminated; stopping the local cluster\n");
  ExpectCleanedUp(tree);
}

// The folder a "local: kept DIR ..." line on `err` names; empty when none.
std::string KeptDir(const std::string& err) {
  const std::string marker = "fabricpulse: local: kept ";
  const size_t at = err.find(marker);
  if (at == std::string::npos) return "";
  const size_t start = at + marker.size();
  return err.substr(start, err.find(' ', start) - start);
}

void RemoveKeptDir(const std::string& err) {
  const std::string dir = KeptDir(err);
  if (!absl::StartsWith(dir, "/tmp/fabricpulse-local-")) return;
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}

TEST(LocalKeepDirTest, KeptFolderIsNamedOnStderr) {
  setenv("FABRICPULSE_KEEP_LOCAL_DIR", "1", 1);
  CliResult r = RunCli({"local", "agents"});
  unsetenv("FABRICPULSE_KEEP_LOCAL_DIR");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string dir = KeptDir(r.err);
  ASSERT_FALSE(dir.empty()) << r.err;
  EXPECT_TRUE(absl::StartsWith(dir, "/tmp/fabricpulse-local-")) << dir;
  EXPECT_TRUE(std::filesystem::exists(dir + "/coordinator.log")) << dir;
  EXPECT_TRUE(std::filesystem::exists(dir + "/agent-0.log")) << dir;
  RemoveKeptDir(r.err);
}

// With the folder kept, a cluster that had started would say so: the one
// line on stderr shows that none did.
TEST(LocalFlagCheckTest, BadFlagsAreRefusedBeforeAnythingStarts) {
  setenv("FABRICPULSE_KEEP_LOCAL_DIR", "1", 1);
  struct Case {
    std::vector<std::string> args;
    std::string err;
  };
  const std::vector<Case> cases = {
      {{"local", "sweep", "--output", "xml"},
       "fabricpulse: --output: unknown format 'xml'; allowed: table, json, "
       "csv\n"},
      {{"local", "sweep", "--bw-unit", "gbps"}, "fabricpulse: --bw-unit: "},
      {{"local", "sweep", "--dtype", "float7"}, "fabricpulse: dtype: "},
      {{"local", "sweep", "--ops", "all_reduce,all_reduse"},
       "fabricpulse: ops: "},
      {{"local", "--ranks", "2", "sweep", "--ops", "broadcast", "--root", "2"},
       "fabricpulse: root: "},
      {{"local", "sweep", "--timeout", "soon"}, "fabricpulse: --timeout: "},
      {{"local", "results", "--output", "yaml"}, "fabricpulse: --output: "},
      {{"local", "diagnose", "--output", "xml"}, "fabricpulse: --output: "},
  };
  for (const Case& c : cases) {
    const absl::Time start = absl::Now();
    CliResult r = RunCli(c.args);
    EXPECT_EQ(r.exit_code, 2) << absl::StrJoin(c.args, " ") << "\n" << r.err;
    EXPECT_TRUE(absl::StartsWith(r.err, c.err)) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(absl::StrContains(r.err, "kept")) << r.err;
    RemoveKeptDir(r.err);  // what a wrongly started cluster left
    EXPECT_TRUE(r.out.empty()) << r.out;
    // Starting a cluster takes seconds; a refusal, milliseconds.
    EXPECT_LT(absl::Now() - start, absl::Seconds(5));
  }
  unsetenv("FABRICPULSE_KEEP_LOCAL_DIR");
}

}  // namespace
}  // namespace fabricpulse::testing
