// Adaptive iteration counts through the real binaries: a coordinator and 2
// agents x 2 Gloo ranks on 127.0.0.1. Every rank runs the same count (the
// coordinator fails a step whose ranks disagree), between min and max; the
// count reaches the table, JSON, CSV and the history; bad settings are
// refused naming the field.
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "tests/integration/test_support.h"

namespace fabricpulse::testing {
namespace {

class AdaptiveIntegrationTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    cluster_ = StartCluster(/*agents=*/2, /*ranks=*/2).release();
  }
  static void TearDownTestSuite() {
    delete cluster_;
    cluster_ = nullptr;
  }
  void SetUp() override {
    ASSERT_NE(cluster_, nullptr);
    stub_ = Connect(cluster_->coordinator());
  }
  std::vector<std::string> With(std::vector<std::string> args) {
    args.insert(args.begin(), {"--coordinator", cluster_->coordinator()});
    return args;
  }
  static client::LocalCluster* cluster_;
  std::unique_ptr<v1::CoordinatorService::Stub> stub_;
};
client::LocalCluster* AdaptiveIntegrationTest::cluster_ = nullptr;

// The "iterations" values of a JSON sweep document, in order.
std::vector<int> JsonIterations(const std::string& json) {
  std::vector<int> counts;
  for (absl::string_view line : absl::StrSplit(json, '\n')) {
    const size_t at = line.find("\"iterations\": ");
    if (at == absl::string_view::npos) continue;
    int n = 0;
    absl::string_view value = line.substr(at + 14);
    absl::ConsumeSuffix(&value, ",");
    EXPECT_TRUE(absl::SimpleAtoi(value, &n)) << line;
    counts.push_back(n);
  }
  return counts;
}

TEST_F(AdaptiveIntegrationTest, EveryRankRunsOneCountBetweenMinAndMax) {
  // 8 B .. 32 KiB by 8, both placements.
  v1::SweepSpec spec = QuickSpec({"all_reduce", "sendrecv"});
  v1::AdaptiveIters* adaptive = spec.mutable_adaptive();
  adaptive->set_tolerance(0.05);
  adaptive->set_min_iters(3);
  adaptive->set_max_iters(12);
  adaptive->set_step_time_cap_seconds(2);
  SweepOutcome outcome = RunSweep(*stub_, spec);
  ASSERT_TRUE(outcome.status.ok()) << outcome.status;
  EXPECT_EQ(outcome.finished.status(), "succeeded");
  ASSERT_FALSE(outcome.results.empty());
  for (const v1::StepResult& r : outcome.results) {
    SCOPED_TRACE(r.step().op() + " " + std::to_string(r.step().bytes()));
    EXPECT_GE(r.iterations(), 3);
    EXPECT_LE(r.iterations(), 12);
    EXPECT_EQ(r.wrong(), 0);
  }
}

TEST_F(AdaptiveIntegrationTest, AnUnreachableToleranceRunsToMax) {
  v1::SweepSpec spec = QuickSpec({"all_reduce"}, 1024);
  spec.mutable_adaptive()->set_tolerance(1e-9);
  spec.mutable_adaptive()->set_min_iters(2);
  spec.mutable_adaptive()->set_max_iters(9);
  SweepOutcome outcome = RunSweep(*stub_, spec);
  ASSERT_TRUE(outcome.status.ok()) << outcome.status;
  for (const v1::StepResult& r : outcome.results) {
    EXPECT_EQ(r.iterations(), 9) << r.step().bytes();
  }
}

TEST_F(AdaptiveIntegrationTest, FixedModeReportsTheConfiguredIters) {
  SweepOutcome outcome = RunSweep(*stub_, QuickSpec({"broadcast"}, 4096));
  ASSERT_TRUE(outcome.status.ok()) << outcome.status;
  for (const v1::StepResult& r : outcome.results) EXPECT_EQ(r.iterations(), 2);
}

TEST_F(AdaptiveIntegrationTest, CliOutputsAndHistoryCarryTheCount) {
  CliResult json =
      RunCli(With({"sweep", "--ops",           "all_reduce", "--min-bytes",
                   "1K",    "--max-bytes",     "16K",        "--factor",
                   "4",     "--iters",         "auto",       "--min-iters",
                   "3",     "--max-iters",     "10",         "--tolerance",
                   "0.05",  "--step-time-cap", "1s",         "--output",
                   "json"}));
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const std::vector<int> counts = JsonIterations(json.out);
  ASSERT_FALSE(counts.empty()) << json.out;
  for (int n : counts) {
    EXPECT_GE(n, 3);
    EXPECT_LE(n, 10);
  }
  // The history keeps them: `results --sweep ID` gives the same counts.
  const size_t id_at = json.out.find("\"sweep_id\": \"");
  ASSERT_NE(id_at, std::string::npos);
  const std::string id =
      json.out.substr(id_at + 13, json.out.find('"', id_at + 13) - id_at - 13);
  CliResult stored =
      RunCli(With({"results", "--sweep", id, "--output", "json"}));
  ASSERT_EQ(stored.exit_code, 0) << stored.err;
  EXPECT_EQ(JsonIterations(stored.out), counts) << stored.out;

  CliResult table = RunCli(
      With({"sweep", "--ops", "all_reduce", "--min-bytes", "1K", "--max-bytes",
            "1K", "--iters", "auto", "--max-iters", "8"}));
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_TRUE(absl::StrContains(table.out, "iters: auto")) << table.out;
  EXPECT_TRUE(absl::StrContains(table.out, "# adaptive iters: tolerance: 0.01"))
      << table.out;
  EXPECT_TRUE(absl::StrContains(table.out, "# Timed iterations     : "))
      << table.out;

  CliResult csv =
      RunCli(With({"sweep", "--ops", "all_reduce", "--min-bytes", "64",
                   "--max-bytes", "64", "--iters", "7", "--output", "csv"}));
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  const std::vector<std::string> lines =
      absl::StrSplit(csv.out, '\n', absl::SkipEmpty());
  ASSERT_GE(lines.size(), 2u) << csv.out;
  EXPECT_TRUE(absl::EndsWith(lines[0], ",iterations")) << lines[0];
  for (size_t i = 1; i < lines.size(); ++i) {
    EXPECT_TRUE(absl::EndsWith(lines[i], ",7")) << lines[i];
  }
}

TEST_F(AdaptiveIntegrationTest, BadSettingsAreRefusedNamingTheField) {
  struct Case {
    std::vector<std::string> flags;
    std::string error;
  };
  const std::vector<Case> cases = {
      {{"--iters", "auto", "--min-iters", "1"},
       "invalid sweep: min_iters: 1 is out of range; allowed: 2 to 1000000"},
      {{"--iters", "auto", "--min-iters", "10", "--max-iters", "5"},
       "invalid sweep: max_iters: 5 is out of range; allowed: min_iters "
       "(10) to 1000000"},
      {{"--iters", "auto", "--tolerance", "0"},
       "invalid sweep: tolerance: 0 is out of range; allowed: more than 0, "
       "up to 0.5"},
      {{"--iters", "auto", "--step-time-cap", "2h"},
       "invalid sweep: step_time_cap: 2h is out of range; allowed: more than "
       "0s, up to 1h"},
      {{"--iters", "auto", "--graph"},
       "invalid sweep: graph: CUDA-graph mode cannot run with adaptive "
       "iterations"},
      {{"--max-iters", "50"},
       "--max-iters: only with --iters auto (adaptive iteration counts)"},
      {{"--iters", "often"}, "--iters: 'often' is not a whole number or auto"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {"sweep", "--min-bytes", "64",
                                     "--max-bytes", "64"};
    args.insert(args.end(), c.flags.begin(), c.flags.end());
    CliResult r = RunCli(With(args));
    EXPECT_EQ(r.exit_code, 2) << c.error << "\n" << r.err;
    EXPECT_TRUE(absl::StrContains(r.err, c.error)) << r.err;
  }
}

}  // namespace
}  // namespace fabricpulse::testing
