// `fabricpulse sweep --wait DURATION` against the real binaries: a sweep
// whose members run another sweep waits for them instead of exiting 4.
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "tests/integration/background_sweep.h"
#include "tests/integration/test_support.h"

namespace fabricpulse::testing {
namespace {

class SweepWaitTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cluster_ = StartCluster(1, 2);
    ASSERT_NE(cluster_, nullptr);
    stub_ = Connect(cluster_->coordinator());
  }
  void TearDown() override {
    stub_.reset();
    if (cluster_) cluster_->Stop();
  }
  // 4 Gloo steps of 4,000 iterations each: several seconds on an idle
  // machine, more on a loaded one; still running when the CLI asks.
  static v1::SweepSpec LongSpec() {
    v1::SweepSpec spec = QuickSpec({"all_reduce"}, 4096);
    spec.set_iters(4000);
    spec.set_check(false);
    spec.set_placement("out_of_place");
    spec.set_timeout_seconds(60);
    return spec;
  }
  std::vector<std::string> Cli(std::vector<std::string> extra) {
    std::vector<std::string> args = {"--coordinator",
                                     cluster_->coordinator(),
                                     "sweep",
                                     "--ops",
                                     "all_reduce",
                                     "--max-bytes",
                                     "1K",
                                     "--iters",
                                     "2"};
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  }

  std::unique_ptr<client::LocalCluster> cluster_;
  std::unique_ptr<v1::CoordinatorService::Stub> stub_;
};

TEST_F(SweepWaitTest, WithoutWaitABusyClusterRefusesAtOnceWithWaitItRuns) {
  BackgroundSweep running(*stub_, LongSpec(), 0);
  ASSERT_TRUE(running.WaitStarted());
  CliResult refused = RunCli(Cli({}));
  EXPECT_EQ(refused.exit_code, 4) << refused.err;
  EXPECT_TRUE(absl::StrContains(refused.err,
                                "is busy with sweep " + running.sweep_id()))
      << refused.err;
  CliResult waited = RunCli(Cli({"--wait", "300s"}), 330);
  EXPECT_EQ(waited.exit_code, 0) << waited.err;
  EXPECT_TRUE(absl::StrContains(waited.err, "(waiting up to ")) << waited.err;
  EXPECT_TRUE(absl::StrContains(waited.out, " succeeded")) << waited.out;
  SweepOutcome first = running.Join();
  EXPECT_TRUE(first.status.ok()) << first.status;
}

TEST_F(SweepWaitTest, WaitIsWaitedInFullBeforeGivingUp) {
  // Once CLI gave up after 6.3 s of --wait 10s and printed "waiting up to
  // 9.994180501s": the last try is at the end of --wait, and it says so.
  BackgroundSweep running(*stub_, LongSpec(), 0);
  ASSERT_TRUE(running.WaitStarted());
  const absl::Time start = absl::Now();
  CliResult gave_up = RunCli(Cli({"--wait", "3s"}));
  const absl::Duration waited = absl::Now() - start;
  EXPECT_EQ(gave_up.exit_code, 4) << gave_up.err;
  EXPECT_GE(waited, absl::Seconds(3)) << gave_up.err;
  EXPECT_TRUE(absl::StrContains(gave_up.err, "(waiting up to 3s: --wait)"))
      << gave_up.err;
  EXPECT_TRUE(absl::StrContains(gave_up.err, "(still after 3s of --wait)"))
      << gave_up.err;
  CliResult abort = RunCli({"--coordinator", cluster_->coordinator(), "abort"});
  EXPECT_EQ(abort.exit_code, 0) << abort.err;
  running.Join();
}

TEST_F(SweepWaitTest, AFreeClusterRunsAtOnceAndBadValuesAreRefused) {
  CliResult free = RunCli(Cli({"--wait", "10m"}));
  EXPECT_EQ(free.exit_code, 0) << free.err;
  EXPECT_FALSE(absl::StrContains(free.err, "waiting")) << free.err;
  for (const char* bad : {"25h", "-1s", "soon"}) {
    CliResult refused = RunCli(Cli({"--wait", bad}));
    EXPECT_EQ(refused.exit_code, 2) << bad;
    EXPECT_TRUE(absl::StrContains(refused.err, "--wait: ")) << refused.err;
  }
}

}  // namespace
}  // namespace fabricpulse::testing
