// The agent's run folder on a real filesystem: its layout and modes, one
// agent per node name (flock), what a killed predecessor left is removed,
// clean removal, and every refusal with its message.
#include "daemon/agent/run_dir.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "daemon/common/unix_socket.h"
#include "gtest/gtest.h"

namespace fabricpulse::agent {
namespace {

class RunDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/fp-run-dir-test-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    base_ = tmpl;
    uid_dir_ = absl::StrCat(base_, "/fabricpulse-agent-", geteuid());
  }
  void TearDown() override { std::filesystem::remove_all(base_); }

  RunDirOptions Options(const std::string& node) const {
    RunDirOptions o;
    o.base = base_;
    o.node_name = node;
    o.longest_entry = "worker-7.0123abcd.sock";
    return o;
  }
  static mode_t ModeOf(const std::string& path) {
    struct stat st;
    EXPECT_EQ(lstat(path.c_str(), &st), 0) << path;
    return st.st_mode & 07777;
  }
  static std::string Contents(const std::string& path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

  std::string base_;
  std::string uid_dir_;
};

TEST_F(RunDirTest, LayoutAndModes) {
  auto d = RunDir::Acquire(Options("node-a"));
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ((*d)->path(), uid_dir_ + "/node-a");
  EXPECT_EQ(ModeOf(uid_dir_), 0700u);
  EXPECT_EQ(ModeOf((*d)->path()), 0700u);
  const std::string lock = (*d)->Entry(kRunDirLockFile);
  EXPECT_EQ(ModeOf(lock), 0600u);
  EXPECT_EQ(Contents(lock), absl::StrCat(getpid(), "\n"));
}

TEST_F(RunDirTest, SecondAgentOfTheNodeIsRefusedNamingTheLockAndThePid) {
  auto first = RunDir::Acquire(Options("node-a"));
  ASSERT_TRUE(first.ok()) << first.status();
  // flock belongs to an open file description: a second open in this
  // process conflicts as another process's would.
  auto second = RunDir::Acquire(Options("node-a"));
  ASSERT_EQ(second.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(second.status().message(),
            absl::StrCat("another fabricpulse-agent (pid ", getpid(),
                         ") already runs node 'node-a' from this run folder (",
                         uid_dir_,
                         "/node-a/agent.lock is locked); stop it, or give "
                         "this agent another --node-name or --run-dir"));
  // The refusal changed nothing: the first still holds its folder.
  EXPECT_TRUE(std::filesystem::exists((*first)->Entry(kRunDirLockFile)));
  EXPECT_EQ(Contents((*first)->Entry(kRunDirLockFile)),
            absl::StrCat(getpid(), "\n"));
  // Another node name is another folder.
  auto other = RunDir::Acquire(Options("node-b"));
  EXPECT_TRUE(other.ok()) << other.status();
}

TEST_F(RunDirTest, RemoveTakesTheFolderAndTheUidFolderWhenLast) {
  auto a = RunDir::Acquire(Options("node-a"));
  auto b = RunDir::Acquire(Options("node-b"));
  ASSERT_TRUE(a.ok() && b.ok());
  std::ofstream((*a)->Entry("worker-0.x.sock")) << "";
  (*a)->Remove();
  EXPECT_FALSE(std::filesystem::exists(uid_dir_ + "/node-a"));
  EXPECT_TRUE(std::filesystem::exists(uid_dir_));  // node-b is still there
  (*a)->Remove();                                  // idempotent
  b->reset();                                      // the destructor removes too
  EXPECT_FALSE(std::filesystem::exists(uid_dir_));
  // And the node can be taken again.
  EXPECT_TRUE(RunDir::Acquire(Options("node-a")).ok());
}

TEST_F(RunDirTest, WhatAKilledPredecessorLeftIsRemoved) {
  // A SIGKILLed agent leaves its folder, its lock file (the kernel drops
  // the lock itself) and maybe sockets.
  ASSERT_EQ(mkdir(uid_dir_.c_str(), 0700), 0);
  ASSERT_EQ(mkdir((uid_dir_ + "/node-a").c_str(), 0700), 0);
  std::ofstream(uid_dir_ + "/node-a/agent.lock") << "424242\n";
  // A socket file nobody listens on, as a dead worker leaves it.
  ASSERT_EQ(mknod((uid_dir_ + "/node-a/worker-0.deadbeef.sock").c_str(),
                  S_IFSOCK | 0600, 0),
            0);
  ASSERT_EQ(
      symlink("/etc", (uid_dir_ + "/node-a/worker-1.deadbeef.sock").c_str()),
      0);
  auto d = RunDir::Acquire(Options("node-a"));
  ASSERT_TRUE(d.ok()) << d.status();
  std::vector<std::string> left;
  for (const auto& e : std::filesystem::directory_iterator((*d)->path())) {
    left.push_back(e.path().filename().string());
  }
  EXPECT_EQ(left, std::vector<std::string>{"agent.lock"});
  EXPECT_TRUE(std::filesystem::exists("/etc/passwd"));  // link not followed
  EXPECT_EQ(Contents((*d)->Entry(kRunDirLockFile)),
            absl::StrCat(getpid(), "\n"));
}

TEST_F(RunDirTest, LeftoverWorkerStillListeningIsNamed) {
  // A stopped worker of a killed agent keeps listening: this process
  // stands in for it.
  ASSERT_EQ(mkdir(uid_dir_.c_str(), 0700), 0);
  ASSERT_EQ(mkdir((uid_dir_ + "/node-a").c_str(), 0700), 0);
  const std::string path = uid_dir_ + "/node-a/worker-0.deadbeef.sock";
  auto still = common::UnixListener::Bind(path, 1);
  ASSERT_TRUE(still.ok()) << still.status();
  ::testing::internal::CaptureStderr();
  auto d = RunDir::Acquire(Options("node-a"));
  const std::string err = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_TRUE(absl::StrContains(
      err, absl::StrCat("a worker of the previous agent (pid ", getpid(),
                        ", uid ", geteuid(), ") still listens on ", path)))
      << err;
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST_F(RunDirTest, RefusesASymbolicLinkOrOpenFolder) {
  ASSERT_EQ(mkdir(uid_dir_.c_str(), 0700), 0);
  ASSERT_EQ(mkdir((base_ + "/elsewhere").c_str(), 0700), 0);
  ASSERT_EQ(
      symlink((base_ + "/elsewhere").c_str(), (uid_dir_ + "/node-a").c_str()),
      0);
  auto link = RunDir::Acquire(Options("node-a"));
  EXPECT_EQ(link.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(absl::StrContains(link.status().message(),
                                uid_dir_ + "/node-a is a symbolic link"))
      << link.status();
  EXPECT_TRUE(std::filesystem::is_empty(base_ + "/elsewhere"));
  ASSERT_EQ(chmod(uid_dir_.c_str(), 0755), 0);
  auto open = RunDir::Acquire(Options("node-b"));
  EXPECT_EQ(open.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(
      absl::StrContains(open.status().message(), uid_dir_ + " has mode 0755"))
      << open.status();
}

TEST_F(RunDirTest, RefusesAnotherUsersFolderWhenRoot) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to chown a folder";
  ASSERT_EQ(mkdir(uid_dir_.c_str(), 0700), 0);
  ASSERT_EQ(chown(uid_dir_.c_str(), 65534, 65534), 0);
  auto d = RunDir::Acquire(Options("node-a"));
  EXPECT_EQ(d.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(absl::StrContains(d.status().message(),
                                "is owned by uid 65534, not by uid 0"))
      << d.status();
}

TEST_F(RunDirTest, BadBaseAndTooLongSocketPathsAreRefused) {
  RunDirOptions o = Options("node-a");
  o.base = "relative/dir";
  EXPECT_TRUE(absl::StrContains(RunDir::Acquire(o).status().message(),
                                "--run-dir: 'relative/dir' is not an absolute "
                                "path"));
  o.base = base_ + "/missing";
  EXPECT_TRUE(absl::StrContains(RunDir::Acquire(o).status().message(),
                                "is not an existing folder"));
  o.base = base_ + "/" + std::string(60, 'b');
  ASSERT_EQ(mkdir(o.base.c_str(), 0700), 0);
  auto long_path = RunDir::Acquire(o);
  EXPECT_EQ(long_path.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(long_path.status().message(),
                                "a Unix socket address allows; choose a "
                                "shorter --run-dir"))
      << long_path.status();
  // Nothing was created for the refused runs.
  EXPECT_TRUE(std::filesystem::is_empty(o.base));
  EXPECT_FALSE(std::filesystem::exists(uid_dir_));
}

TEST(NodeDirNameTest, KeepsSafeNamesAndHashesTheRest) {
  EXPECT_EQ(NodeDirName("node-a"), "node-a");
  EXPECT_EQ(NodeDirName("gpu-07.rack3_b"), "gpu-07.rack3_b");
  for (const char* name : {"..", ".", "a/b", "../../etc", "node\nforged", "",
                           "ip-10-0-0-1.us-west-2.compute.internal.example"}) {
    const std::string d = NodeDirName(name);
    EXPECT_NE(d, name);
    EXPECT_EQ(d.find('/'), std::string::npos) << d;
    EXPECT_NE(d[0], '.') << d;
    EXPECT_LE(d.size(), kMaxNodeDirName) << d;
    EXPECT_EQ(d, NodeDirName(name));  // deterministic
  }
  EXPECT_EQ(NodeDirName("a/b").substr(0, 4), "a_b-");
  EXPECT_NE(NodeDirName("a/b"), NodeDirName("a:b"));
}

TEST(DefaultRunDirBaseTest, XdgRuntimeDirElseTmp) {
  const char* saved = getenv("XDG_RUNTIME_DIR");
  const std::string restore = saved ? saved : "";
  setenv("XDG_RUNTIME_DIR", "/run/user/1234", 1);
  EXPECT_EQ(DefaultRunDirBase(), "/run/user/1234");
  setenv("XDG_RUNTIME_DIR", "relative", 1);
  EXPECT_EQ(DefaultRunDirBase(), "/tmp");
  unsetenv("XDG_RUNTIME_DIR");
  EXPECT_EQ(DefaultRunDirBase(), "/tmp");
  if (saved) setenv("XDG_RUNTIME_DIR", restore.c_str(), 1);
}

}  // namespace
}  // namespace fabricpulse::agent
