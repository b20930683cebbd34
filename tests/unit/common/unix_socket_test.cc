// Private Unix sockets on real sockets in a temporary folder: the file's
// mode whatever the umask, SO_PEERCRED, the check of who serves a socket,
// and the listener that passes on only the allowed peer.
#include "daemon/common/unix_socket.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "daemon/common/peer_checked_listener.h"
#include "daemon/common/private_path.h"
#include "gtest/gtest.h"

namespace fabricpulse::common {
namespace {
namespace FP_UNITY_ID {

class UnixSocketTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/fp-unix-socket-test-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
};

mode_t ModeOf(const std::string& path) {
  struct stat st;
  EXPECT_EQ(lstat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

TEST_F(UnixSocketTest, SocketIsPrivateWhateverTheUmask) {
  const mode_t old = umask(0);
  auto l = UnixListener::Bind(dir_ + "/a.sock", 4);
  umask(old);
  ASSERT_TRUE(l.ok()) << l.status();
  EXPECT_EQ(ModeOf(dir_ + "/a.sock"), 0600u);
  EXPECT_TRUE(CheckPrivateSocket(dir_ + "/a.sock", geteuid()).ok());
  // The process umask is restored.
  const mode_t now = umask(old);
  EXPECT_EQ(now, old);
}

TEST_F(UnixSocketTest, StaleFileIsReplacedAndOnlyOurOwnIsRemoved) {
  const std::string path = dir_ + "/a.sock";
  { auto stale = UnixListener::Bind(path, 4); }
  auto first = UnixListener::Bind(path, 4);
  ASSERT_TRUE(first.ok()) << first.status();
  // A newer socket at the same path (a successor) must survive the first
  // one's Close.
  auto second = UnixListener::Bind(path, 4);
  ASSERT_TRUE(second.ok()) << second.status();
  first->Close();
  EXPECT_TRUE(std::filesystem::exists(path));
  second->Close();
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST_F(UnixSocketTest, TooLongPathIsRefusedWithTheBound) {
  auto l = UnixListener::Bind(dir_ + "/" + std::string(120, 'x'), 4);
  ASSERT_EQ(l.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(l.status().message(), "allowed: 1 to 107"))
      << l.status();
}

TEST_F(UnixSocketTest, CheckPrivateSocketNamesWhatIsWrong) {
  const std::string path = dir_ + "/a.sock";
  auto l = UnixListener::Bind(path, 4);
  ASSERT_TRUE(l.ok());
  ASSERT_EQ(chmod(path.c_str(), 0666), 0);
  absl::Status wide = CheckPrivateSocket(path, geteuid());
  EXPECT_EQ(wide.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(absl::StrContains(wide.message(), "has mode 0666")) << wide;
  absl::Status other = CheckPrivateSocket(path, geteuid() + 1);
  EXPECT_TRUE(absl::StrContains(other.message(), "is owned by uid")) << other;
  EXPECT_EQ(CheckPrivateSocket(dir_ + "/none.sock", geteuid()).code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(CheckPrivateSocket(dir_, geteuid()).code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST_F(UnixSocketTest, PeerCredentialsAndServerCheck) {
  const std::string path = dir_ + "/a.sock";
  auto l = UnixListener::Bind(path, 4);
  ASSERT_TRUE(l.ok());
  auto client = ConnectUnixSocket(path);
  ASSERT_TRUE(client.ok()) << client.status();
  // The server as the client sees it: this process (it called listen()).
  auto server = GetPeerCredentials(client->get());
  ASSERT_TRUE(server.ok()) << server.status();
  EXPECT_EQ(server->pid, getpid());
  EXPECT_EQ(server->uid, geteuid());
  EXPECT_TRUE(
      CheckSocketServer(path, {geteuid(), getpid(), "this process"}).ok());
  absl::Status other =
      CheckSocketServer(path, {geteuid(), getppid(), "the parent"});
  EXPECT_EQ(other.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_TRUE(absl::StrContains(
      other.message(), absl::StrCat("peer pid ", getpid(), " uid ", geteuid(),
                                    " is not the parent")))
      << other;
  EXPECT_EQ(ConnectUnixSocket(dir_ + "/none.sock").status().code(),
            absl::StatusCode::kNotFound);
}

TEST(CheckPeerTest, NamesWhatDiffers) {
  const AllowedPeer agent{1000, 42, "this worker's agent"};
  EXPECT_TRUE(CheckPeer({42, 1000, 1000}, agent).ok());
  absl::Status pid = CheckPeer({43, 1000, 1000}, agent);
  EXPECT_EQ(pid.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(pid.message(),
            "peer pid 43 uid 1000 is not this worker's agent (pid 42 uid "
            "1000)");
  EXPECT_FALSE(CheckPeer({42, 1001, 1001}, agent).ok());
}

// Reads until EOF or an error; true on EOF (the other end closed).
bool ClosedByPeer(int fd) {
  pollfd p{fd, POLLIN, 0};
  if (poll(&p, 1, 10000) != 1) return false;
  char c;
  return read(fd, &c, 1) == 0;
}

TEST_F(UnixSocketTest, ListenerPassesOnOnlyTheAllowedPeer) {
  auto l = UnixListener::Bind(dir_ + "/a.sock", 4);
  ASSERT_TRUE(l.ok());
  absl::Mutex mu;
  std::vector<UniqueFd> accepted;
  pid_t allowed_pid = getpid();
  PeerCheckedListenerOptions options;
  options.listener = std::move(*l);
  options.check = [&](const PeerCredentials& peer) {
    absl::MutexLock lock(&mu);
    return CheckPeer(peer, {geteuid(), allowed_pid, "the test"});
  };
  options.on_accepted = [&](UniqueFd fd) {
    absl::MutexLock lock(&mu);
    accepted.push_back(std::move(fd));
  };
  auto listener = PeerCheckedListener::Start(std::move(options));
  ASSERT_TRUE(listener.ok()) << listener.status();

  auto passed = ConnectUnixSocket(dir_ + "/a.sock");
  ASSERT_TRUE(passed.ok());
  {
    absl::MutexLock lock(&mu);
    mu.Await(absl::Condition(
        +[](std::vector<UniqueFd>* v) { return !v->empty(); }, &accepted));
  }
  EXPECT_EQ((*listener)->refused(), 0u);

  {
    absl::MutexLock lock(&mu);
    allowed_pid = getppid();  // from now on this process is a stranger
  }
  for (int i = 0; i < 3; ++i) {
    auto refused = ConnectUnixSocket(dir_ + "/a.sock");
    ASSERT_TRUE(refused.ok());
    EXPECT_TRUE(ClosedByPeer(refused->get()));
  }
  EXPECT_EQ((*listener)->refused(), 3u);
  {
    absl::MutexLock lock(&mu);
    EXPECT_EQ(accepted.size(), 1u);
  }
  (*listener)->Stop();
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/a.sock"));
  (*listener)->Stop();  // idempotent
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::common
