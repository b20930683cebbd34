// `fabricpulse compare A B` against a real coordinator's history: the
// real binaries, two real Gloo sweeps.
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "tests/integration/test_support.h"

namespace fabricpulse::testing {
namespace {

class CompareIntegrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cluster_ = StartCluster(1, 2);
    ASSERT_NE(cluster_, nullptr);
    stub_ = Connect(cluster_->coordinator());
    for (int i = 0; i < 2; ++i) {
      SweepOutcome outcome =
          RunSweep(*stub_, QuickSpec({"all_reduce", "all_gather"}, 4096));
      ASSERT_TRUE(outcome.status.ok()) << outcome.status;
      ids_.push_back(outcome.start.sweep_id());
    }
  }
  void TearDown() override {
    stub_.reset();
    if (cluster_) cluster_->Stop();
  }
  CliResult Compare(std::vector<std::string> args) {
    args.insert(args.begin(), {"--coordinator", cluster_->coordinator()});
    return RunCli(args);
  }

  std::unique_ptr<client::LocalCluster> cluster_;
  std::unique_ptr<v1::CoordinatorService::Stub> stub_;
  std::vector<std::string> ids_;
};

TEST_F(CompareIntegrationTest, TwoSweepsAreComparedRowByRow) {
  CliResult table = Compare({"compare", ids_[0], ids_[1]});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_TRUE(absl::StrContains(table.out, "# compare A " + ids_[0]))
      << table.out;
  // 2 ops x 4 sizes (8 B to 4 KiB by 8) x 2 placements, all matched.
  EXPECT_TRUE(absl::StrContains(table.out, "# 16 row(s) compared: "))
      << table.out;
  EXPECT_TRUE(absl::StrContains(table.out, "; 0 only in A, 0 only in B\n"))
      << table.out;
  CliResult json = Compare({"compare", ids_[0], ids_[1], "--output", "json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_TRUE(absl::StrContains(
      json.out, "\"a\":\"" + ids_[0] + "\",\"b\":\"" + ids_[1] + "\""))
      << json.out;
  EXPECT_TRUE(absl::StrContains(json.out, "\"only_in_a\":0,\"only_in_b\":0"))
      << json.out;
}

TEST_F(CompareIntegrationTest, ASweepAgainstItselfMarksNothing) {
  CliResult self = Compare({"compare", ids_[0], ids_[0], "--fail-on-slower"});
  EXPECT_EQ(self.exit_code, 0) << self.out << self.err;
  EXPECT_TRUE(absl::StrContains(self.out, ": 0 slower, 0 faster beyond noise"))
      << self.out;
}

TEST_F(CompareIntegrationTest, BadInputIsRefusedNamingIt) {
  CliResult unknown = Compare({"compare", ids_[0], "20000101-000000-0000"});
  EXPECT_EQ(unknown.exit_code, 2) << unknown.err;
  EXPECT_TRUE(absl::StrContains(unknown.err, "compare: ")) << unknown.err;
  CliResult threshold =
      Compare({"compare", ids_[0], ids_[1], "--threshold", "0"});
  EXPECT_EQ(threshold.exit_code, 2);
  EXPECT_TRUE(
      absl::StrContains(threshold.err, "--threshold: 0 is out of range"))
      << threshold.err;
}

}  // namespace
}  // namespace fabricpulse::testing
