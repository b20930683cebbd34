// The CLI's gates against real daemons: `sweep --min-busbw` (nccl-tests'
// NCCL_TESTS_MIN_BW) and `sweep --fail-on-regression` exit 5 with one line
// per failed gate, 0 when the gate holds, 2 for bad values; both also under
// `fabricpulse local`.
//
// The regression is injected through the coordinator's own history: a real
// sweep's record is copied into the history as completed sweeps whose
// times are 1000x shorter (a baseline the fabric cannot meet: the next
// real sweep regresses) or 1000x longer (it cannot regress). The verdict
// and the exit code are the real coordinator's and the real CLI's.
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "tests/integration/history_seed.h"
#include "tests/integration/test_support.h"

namespace fabricpulse::testing {
namespace {
namespace FP_UNITY_ID {

int CountLines(const std::string& text) {
  int n = 0;
  for (char c : text) n += c == '\n';
  return n;
}

// The "sweep_id" of a JSON sweep document.
std::string SweepIdOf(const std::string& json) {
  const std::string key = "\"sweep_id\": \"";
  const size_t at = json.find(key);
  if (at == std::string::npos) return "";
  const size_t start = at + key.size();
  return json.substr(start, json.find('"', start) - start);
}

class GateTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    cluster_ = StartCluster(/*agents=*/1, /*ranks=*/2).release();
  }
  static void TearDownTestSuite() {
    delete cluster_;
    cluster_ = nullptr;
  }
  void SetUp() override { ASSERT_NE(cluster_, nullptr); }

  // all_reduce (or `ops`) at 1, 2 and 4 KiB, out of place.
  CliResult Sweep(std::vector<std::string> extra,
                  const std::string& ops = "all_reduce") {
    std::vector<std::string> args = {"--coordinator",
                                     cluster_->coordinator(),
                                     "sweep",
                                     "--ops",
                                     ops,
                                     "--min-bytes",
                                     "1K",
                                     "--max-bytes",
                                     "4K",
                                     "--iters",
                                     "3",
                                     "--out-of-place"};
    args.insert(args.end(), extra.begin(), extra.end());
    return RunCli(args);
  }

  // Copies sweep `id` into the history `copies` times as succeeded sweeps,
  // newer than every sweep so far, with every step's time x `time_factor`
  // (and bandwidths / time_factor).
  static void SeedBaseline(const std::string& id, int copies,
                           double time_factor, const std::string& tag) {
    SeedOptions options;
    options.copies = copies;
    options.time_factor = time_factor;
    options.first_start = absl::Now();
    SeedHistoryCopies(cluster_->dir() + "/state/history.db", id, tag, options);
  }

  static client::LocalCluster* cluster_;
};
client::LocalCluster* GateTest::cluster_ = nullptr;

TEST_F(GateTest, MinBusbwFailsWithExitFiveAndPassesATinyMinimum) {
  CliResult r = Sweep({"--min-busbw", "all_reduce=100000"});
  EXPECT_EQ(r.exit_code, 5) << r.err;
  EXPECT_EQ(CountLines(r.err), 1) << r.err;
  EXPECT_TRUE(absl::StrContains(r.err,
                                "gate failed: all_reduce: average "
                                "busbw "))
      << r.err;
  EXPECT_TRUE(absl::StrContains(r.err, "is below the required 100000 GB/s"))
      << r.err;
  EXPECT_TRUE(absl::StrContains(r.out, "succeeded")) << r.out;  // the table

  r = Sweep({"--min-busbw", "all_reduce=0.000001"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
  // In bits per second, comma-separated with another swept op.
  r = Sweep({"--bw-unit", "Gbps", "--min-busbw",
             "all_reduce=0.000001,all_gather=800000"},
            "all_reduce,all_gather");
  EXPECT_EQ(r.exit_code, 5) << r.err;
  EXPECT_TRUE(absl::StrContains(r.err, "all_gather: average busbw")) << r.err;
  EXPECT_TRUE(absl::StrContains(r.err, "required 800000 Gbps")) << r.err;
  EXPECT_FALSE(absl::StrContains(r.err, "all_reduce:")) << r.err;
}

TEST_F(GateTest, BadMinimumsExitTwoWithOneLine) {
  for (const std::vector<std::string>& bad :
       {std::vector<std::string>{"--min-busbw", "all_reduce=-1"},
        {"--min-busbw", "allreduse=1"},
        {"--min-busbw", "all_reduce"},
        {"--min-busbw", "all_reduce=fast"},
        {"--min-busbw", "all_gather=1"}}) {  // not swept
    CliResult r = Sweep(bad);
    EXPECT_EQ(r.exit_code, 2) << bad[1] << ": " << r.err;
    EXPECT_EQ(CountLines(r.err), 1) << r.err;
    EXPECT_TRUE(absl::StrContains(r.err, "--min-busbw")) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;  // nothing ran
  }
}

TEST_F(GateTest, FailOnRegressionFiresOnlyAgainstABaselineItMisses) {
  // No baseline yet (fewer than 5 completed sweeps): silent.
  CliResult first = Sweep({"--fail-on-regression", "--output", "json"});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_TRUE(absl::StrContains(first.out, "\"baseline_sweeps\": 0"))
      << first.out;
  const std::string id = SweepIdOf(first.out);
  ASSERT_FALSE(id.empty()) << first.out;

  // A baseline 1000x faster than this fabric: the next sweep regresses.
  SeedBaseline(id, 5, 1e-3, "fast");
  CliResult regressed = Sweep({"--fail-on-regression"});
  EXPECT_EQ(regressed.exit_code, 5) << regressed.err;
  EXPECT_EQ(CountLines(regressed.err), 1) << regressed.err;
  EXPECT_TRUE(absl::StrContains(regressed.err,
                                "gate failed: 3 step(s) regressed against "
                                "their baseline (--fail-on-regression); "
                                "first: all_reduce 1K out-of-place: time "))
      << regressed.err;
  // Latency-bound steps are compared by time in the table too.
  EXPECT_TRUE(absl::StrContains(
      regressed.out, "# 3 step(s) regressed against their baseline:\n"))
      << regressed.out;
  EXPECT_FALSE(absl::StrContains(regressed.out, "0.00 GB/s vs"))
      << regressed.out;
  // Without the flag, the same regression is shown but does not fail.
  CliResult shown = Sweep({"--output", "json"});
  EXPECT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_TRUE(absl::StrContains(shown.out, "\"regression\": true"))
      << shown.out;
  EXPECT_TRUE(absl::StrContains(shown.out, "\"judged_on\": \"time\""))
      << shown.out;

  // A newer window of 10 baselines 1000x slower: nothing regresses.
  SeedBaseline(id, 10, 1e3, "slow");
  CliResult healthy = Sweep({"--fail-on-regression", "--output", "json"});
  EXPECT_EQ(healthy.exit_code, 0) << healthy.err;
  EXPECT_TRUE(healthy.err.empty()) << healthy.err;
  EXPECT_TRUE(absl::StrContains(healthy.out, "\"baseline_sweeps\": 10"))
      << healthy.out;
  EXPECT_FALSE(absl::StrContains(healthy.out, "\"regression\": true"))
      << healthy.out;
}

TEST(GateLocalTest, GatesWorkUnderLocal) {
  CliResult r = RunCli({"local", "--backend", "gloo", "--agents", "1",
                        "--ranks", "2", "sweep", "--max-bytes", "1K",
                        "--min-busbw", "all_reduce=100000"});
  EXPECT_EQ(r.exit_code, 5) << r.err;
  EXPECT_TRUE(absl::StrContains(r.err, "all_reduce: average busbw")) << r.err;
  // A fresh local system has no history: no regression to fail on.
  r = RunCli({"local", "--backend", "gloo", "--agents", "1", "--ranks", "2",
              "sweep", "--max-bytes", "1K", "--fail-on-regression",
              "--min-busbw", "all_reduce=0.000001"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = RunCli(
      {"local", "--backend", "gloo", "sweep", "--min-busbw", "all_reduce=-5"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::testing
