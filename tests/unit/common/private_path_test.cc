// The private-folder checks on real folders: created 0700, and refused
// (with what to do) when a symbolic link, a file, too open or another
// user's.
#include "daemon/common/private_path.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "absl/strings/match.h"
#include "gtest/gtest.h"

namespace fabricpulse::common {
namespace {
namespace FP_UNITY_ID {

class PrivatePathTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/fp-private-path-test-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
};

TEST_F(PrivatePathTest, CreatesA0700FolderWhateverTheUmask) {
  const mode_t old = umask(0);
  absl::Status made = EnsurePrivateDirectory(dir_ + "/a", geteuid());
  umask(old);
  ASSERT_TRUE(made.ok()) << made;
  struct stat st;
  ASSERT_EQ(lstat((dir_ + "/a").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0700u);
  // An existing private folder is fine.
  EXPECT_TRUE(EnsurePrivateDirectory(dir_ + "/a", geteuid()).ok());
}

TEST_F(PrivatePathTest, RefusesASymbolicLink) {
  ASSERT_TRUE(EnsurePrivateDirectory(dir_ + "/real", geteuid()).ok());
  ASSERT_EQ(symlink((dir_ + "/real").c_str(), (dir_ + "/link").c_str()), 0);
  absl::Status s = EnsurePrivateDirectory(dir_ + "/link", geteuid());
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(absl::StrContains(s.message(), "is a symbolic link")) << s;
}

TEST_F(PrivatePathTest, RefusesAFileAndAnOpenFolderWithoutChangingThem) {
  ASSERT_EQ(mkdir((dir_ + "/open").c_str(), 0755), 0);
  ASSERT_EQ(chmod((dir_ + "/open").c_str(), 0755), 0);
  absl::Status open = EnsurePrivateDirectory(dir_ + "/open", geteuid());
  EXPECT_EQ(open.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(absl::StrContains(open.message(),
                                "has mode 0755; it must be "
                                "0700"))
      << open;
  struct stat st;
  ASSERT_EQ(lstat((dir_ + "/open").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0755u);  // left as it was
  ASSERT_EQ(close(creat((dir_ + "/file").c_str(), 0600)), 0);
  absl::Status file = CheckPrivateDirectory(dir_ + "/file", geteuid());
  EXPECT_TRUE(absl::StrContains(file.message(), "is not a folder")) << file;
}

TEST_F(PrivatePathTest, RefusesAnotherUsersFolder) {
  ASSERT_TRUE(EnsurePrivateDirectory(dir_ + "/a", geteuid()).ok());
  absl::Status s = CheckPrivateDirectory(dir_ + "/a", geteuid() + 1);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(absl::StrContains(s.message(), "is owned by uid")) << s;
}

TEST_F(PrivatePathTest, MissingParentIsNotFound) {
  EXPECT_EQ(EnsurePrivateDirectory(dir_ + "/no/such", geteuid()).code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(CheckPrivateDirectory(dir_ + "/none", geteuid()).code(),
            absl::StatusCode::kNotFound);
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::common
