// `local` shows everything (issue 33, item 8): with --state-dir the history
// outlives one command, so results and report see the sweeps of earlier
// runs; with --config (the shipped one here) plans and schedules are the
// config's; bad values are refused before anything starts.
#include <sys/stat.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "client/commands/exit_codes.h"
#include "gtest/gtest.h"
#include "tests/integration/test_support.h"

namespace fabricpulse::testing {
namespace {

class LocalStateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/fabricpulse-local-state-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
};

TEST_F(LocalStateTest, TheHistoryOutlivesOneCommand) {
  const std::string state = dir_ + "/state";  // created by local
  CliResult sweep = RunCli({"local", "--state-dir", state, "sweep", "--ops",
                            "all_reduce", "-e", "1K", "-n", "2"});
  ASSERT_EQ(sweep.exit_code, 0) << sweep.err;
  struct stat st;
  ASSERT_EQ(stat(state.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  // A second local cluster on the same folder lists it and reports it.
  CliResult results = RunCli({"local", "--state-dir", state, "results"});
  ASSERT_EQ(results.exit_code, 0) << results.err;
  EXPECT_TRUE(absl::StrContains(results.out, " succeeded ")) << results.out;
  const std::string html = dir_ + "/report.html";
  CliResult report =
      RunCli({"local", "--state-dir", state, "report", "-o", html});
  EXPECT_EQ(report.exit_code, 0) << report.err;
  EXPECT_TRUE(std::filesystem::exists(html));
  // Without it, a fresh cluster has nothing to report (exit 2, as before).
  CliResult fresh = RunCli({"local", "report", "-o", html});
  EXPECT_NE(fresh.exit_code, 0) << fresh.err;
}

TEST_F(LocalStateTest, TheShippedConfigsPlansAndSchedulesShow) {
  const std::string shipped =
      std::string(FABRICPULSE_SOURCE_DIR) + "/deploy/config/coordinator.yaml";
  CliResult plans = RunCli({"local", "--config", shipped, "plans"});
  ASSERT_EQ(plans.exit_code, 0) << plans.err;
  EXPECT_TRUE(absl::StrContains(plans.out, "nightly-full")) << plans.out;
  CliResult schedules = RunCli({"local", "--config", shipped, "schedules"});
  ASSERT_EQ(schedules.exit_code, 0) << schedules.err;
  EXPECT_TRUE(absl::StrContains(schedules.out, "nightly")) << schedules.out;
}

TEST_F(LocalStateTest, BadValuesAreRefusedBeforeAnythingStarts) {
  CliResult missing =
      RunCli({"local", "--config", dir_ + "/nonexistent.yaml", "plans"});
  EXPECT_EQ(missing.exit_code, client::kExitBadInput) << missing.err;
  EXPECT_TRUE(absl::StartsWith(missing.err, "fabricpulse: local --config "))
      << missing.err;
  const std::string file = dir_ + "/a-file";
  std::FILE* f = std::fopen(file.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fclose(f);
  CliResult not_dir = RunCli({"local", "--state-dir", file, "plans"});
  EXPECT_EQ(not_dir.exit_code, client::kExitBadInput) << not_dir.err;
  EXPECT_TRUE(absl::StrContains(not_dir.err, "is not a folder")) << not_dir.err;
}

}  // namespace
}  // namespace fabricpulse::testing
