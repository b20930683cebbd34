#include "daemon/core/bounded_file.h"

#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fabricpulse::core {
namespace {
namespace FP_UNITY_ID {

using ::testing::HasSubstr;

class BoundedFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string templ = ::testing::TempDir() + "bounded_file_test.XXXXXX";
    ASSERT_NE(mkdtemp(templ.data()), nullptr);
    dir_ = templ;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Write(const std::string& name, const std::string& text) {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
  std::string dir_;
};

TEST_F(BoundedFileTest, ReadsARegularFileWithinTheBound) {
  const std::string path = Write("a.yaml", "plans: {}\n");
  auto text = ReadBoundedFile(path, 10, "--config");
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(*text, "plans: {}\n");
  // Empty is a regular file too.
  auto empty = ReadBoundedFile(Write("e", ""), 10, "--config");
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ(*empty, "");
}

TEST_F(BoundedFileTest, FollowsSymbolicLinksToRegularFiles) {
  // Kubernetes mounts a Secret's files as links into a ..data folder.
  const std::string target = Write("target.pem", "PEM");
  const std::string link = dir_ + "/link.pem";
  ASSERT_EQ(symlink(target.c_str(), link.c_str()), 0);
  auto text = ReadBoundedFile(link, kMaxPemFileBytes, "--tls-cert");
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(*text, "PEM");
}

TEST_F(BoundedFileTest, RefusesAFileOverTheBound) {
  const std::string path = Write("big", std::string(11, 'x'));
  auto text = ReadBoundedFile(path, 10, "--config");
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(text.status().message(),
            "--config: cannot read '" + path +
                "': 11 bytes is larger than the bound of 10 bytes");
}

TEST_F(BoundedFileTest, RefusesDevZeroWithoutReadingIt) {
  auto text = ReadBoundedFile("/dev/zero", kMaxConfigFileBytes, "--config");
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(text.status().message(),
            "--config: cannot read '/dev/zero': Is a character device; a "
            "regular file is required");
}

TEST_F(BoundedFileTest, RefusesAFifoThatNobodyWritesAtOnce) {
  const std::string path = dir_ + "/fifo";
  ASSERT_EQ(mkfifo(path.c_str(), 0600), 0);
  const absl::Time start = absl::Now();
  auto text = ReadBoundedFile(path, kMaxConfigFileBytes, "--config");
  EXPECT_LT(absl::Now() - start, absl::Seconds(1));
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(text.status().message()),
              HasSubstr("Is a FIFO; a regular file is required"));
}

TEST_F(BoundedFileTest, RefusesADirectoryAndASocket) {
  auto dir = ReadBoundedFile(dir_, kMaxConfigFileBytes, "--config");
  ASSERT_FALSE(dir.ok());
  EXPECT_EQ(dir.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(dir.status().message()), HasSubstr("Is a directory"));

  // A bound Unix socket cannot be opened at all (ENXIO): still one clear
  // error, no hang.
  const std::string path = dir_ + "/sock";
  const int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof(addr.sun_path) - 1);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  auto sock = ReadBoundedFile(path, kMaxConfigFileBytes, "--config");
  close(fd);
  ASSERT_FALSE(sock.ok());
  EXPECT_THAT(std::string(sock.status().message()),
              HasSubstr("--config: cannot read '" + path + "': "));
}

TEST_F(BoundedFileTest, MissingAndUnreadableFilesNameTheCause) {
  auto missing = ReadBoundedFile(dir_ + "/none", 10, "--authz-policy");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(missing.status().message(),
            "--authz-policy: cannot read '" + dir_ +
                "/none': No such file or directory");
  if (geteuid() == 0) GTEST_SKIP() << "root reads files of mode 000";
  const std::string path = Write("secret", "x");
  ASSERT_EQ(chmod(path.c_str(), 0), 0);
  auto denied = ReadBoundedFile(path, 10, "--tls-key");
  ASSERT_FALSE(denied.ok());
  EXPECT_EQ(denied.status().code(), absl::StatusCode::kPermissionDenied);
}

TEST_F(BoundedFileTest, QuotesAtMostAShortPrefixOfALongPath) {
  const std::string path = "/nonexistent/" + std::string(5000, 'p');
  auto text = ReadBoundedFile(path, 10, "--config");
  ASSERT_FALSE(text.ok());
  EXPECT_LT(text.status().message().size(), 400u);
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::core
