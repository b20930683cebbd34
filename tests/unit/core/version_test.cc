#include "daemon/core/version.h"

#include "absl/strings/match.h"
#include "gtest/gtest.h"

namespace fabricpulse::core {
namespace {

TEST(VersionTest, FormatsNumberCommitAndDirtyTree) {
  EXPECT_EQ(FormatVersion("0.1.0", "", false), "0.1.0");
  EXPECT_EQ(FormatVersion("0.1.0", "", true), "0.1.0");  // no commit: no tree
  EXPECT_EQ(FormatVersion("0.1.0", "1a2b3c4d5e6f", false),
            "0.1.0+1a2b3c4d5e6f");
  EXPECT_EQ(FormatVersion("1.2.3", "1a2b3c4d5e6f", true),
            "1.2.3+1a2b3c4d5e6f.dirty");
}

TEST(VersionTest, ThisBuildReportsTheProjectVersion) {
  const std::string& version = Version();
  EXPECT_TRUE(absl::StartsWith(version, FABRICPULSE_PROJECT_VERSION))
      << version;
  EXPECT_NE(version, "dev");
  // Only the number, or the number and build metadata.
  const std::string rest =
      version.substr(std::string(FABRICPULSE_PROJECT_VERSION).size());
  EXPECT_TRUE(rest.empty() || rest[0] == '+') << version;
  EXPECT_EQ(VersionLine("fabricpulse-agent"), "fabricpulse-agent " + version);
}

}  // namespace
}  // namespace fabricpulse::core
