// `fabricpulse matrix` on real binaries: 2 agents x 2 Gloo ranks, every
// rank pair measured both ways, labelled by path, kept in the history and
// exported per node pair.
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "client/commands/exit_codes.h"
#include "gtest/gtest.h"
#include "tests/integration/metrics_scrape.h"
#include "tests/integration/test_support.h"

namespace fabricpulse::testing {
namespace {

class MatrixIntegrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cluster_ = StartCluster(2, 2);
    ASSERT_NE(cluster_, nullptr);
  }
  void TearDown() override {
    if (cluster_) cluster_->Stop();
  }
  CliResult Cli(std::vector<std::string> args) {
    args.insert(args.begin(), {"--coordinator", cluster_->coordinator()});
    return RunCli(args);
  }
  // The CSV rows (header left out) of a matrix's output.
  static std::vector<std::vector<std::string>> Rows(const std::string& csv) {
    std::vector<std::vector<std::string>> rows;
    for (absl::string_view line :
         absl::StrSplit(csv, '\n', absl::SkipEmpty())) {
      if (absl::StartsWith(line, "sweep_id,")) continue;
      rows.push_back(absl::StrSplit(line, ','));
    }
    return rows;
  }

  std::unique_ptr<client::LocalCluster> cluster_;
};

TEST_F(MatrixIntegrationTest, EveryPairIsMeasuredAndLabelledByPath) {
  // One sweep (no confirmation run): its output is what `--sweep ID`
  // prints from the history (MatrixConfirmTest covers the confirmation).
  CliResult run = Cli({"matrix", "--bytes", "256K", "--iters", "3", "--output",
                       "csv", "--progress", "never", "--no-confirm"});
  ASSERT_EQ(run.exit_code, 0) << run.err << run.out;
  const auto rows = Rows(run.out);
  // 4 ranks: 6 pairs in 3 rounds of 2.
  ASSERT_EQ(rows.size(), 6u) << run.out;
  int within = 0, across = 0;
  for (const auto& row : rows) {
    ASSERT_EQ(row.size(), 12u) << run.out;
    EXPECT_EQ(row[1], "262144");
    const int a = std::stoi(row[2]), b = std::stoi(row[3]);
    EXPECT_LT(a, b);
    // Ranks 0-1 run on node-0, 2-3 on node-1.
    const bool same_node = a / 2 == b / 2;
    EXPECT_EQ(row[6], same_node ? "pcie_shm" : "network") << a << "-" << b;
    (same_node ? within : across)++;
    EXPECT_GT(std::stod(row[9]), 0) << "busbw of " << a << "-" << b;
    EXPECT_EQ(row[10], "0") << "wrong elements of " << a << "-" << b;
  }
  EXPECT_EQ(within, 2);
  EXPECT_EQ(across, 4);

  // The history keeps the matrix: `--sweep ID` prints the same pairs.
  const std::string id = rows.front()[0];
  CliResult stored = Cli({"matrix", "--sweep", id, "--output", "csv"});
  ASSERT_EQ(stored.exit_code, 0) << stored.err;
  EXPECT_EQ(Rows(stored.out), rows);

  // The table groups by node pair.
  CliResult table = Cli({"matrix", "--sweep", id});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  const std::string n0 = cluster_->NodeName(0), n1 = cluster_->NodeName(1);
  EXPECT_TRUE(absl::StrContains(
      table.out, absl::StrCat("# ", n0, " <-> ", n1, "  network  4")))
      << table.out;
  EXPECT_TRUE(absl::StrContains(
      table.out, absl::StrCat("# ", n0, " <-> ", n0, "  pcie_shm  1")))
      << table.out;

  // The HTML report draws the stored matrix as a heatmap of its pairs.
  const std::string html = ::testing::TempDir() + "matrix_report.html";
  CliResult report = Cli({"report", "--sweep", id, "-o", html});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  std::ifstream in(html);
  const std::string page((std::istreambuf_iterator<char>(in)),
                         std::istreambuf_iterator<char>());
  EXPECT_TRUE(absl::StrContains(page, "<svg class=\"heatmap\"")) << page;
  size_t cells = 0;
  for (size_t at = page.find("class=\"cell"); at != std::string::npos;
       at = page.find("class=\"cell", at + 1)) {
    cells++;
  }
  EXPECT_GE(cells, 6u);
  std::remove(html.c_str());

  // One series per node pair (3: 0/0, 0/1 and 1/1).
  auto metrics = ScrapeMetrics(cluster_->coordinator_metrics());
  ASSERT_TRUE(metrics.ok()) << metrics.status();
  EXPECT_EQ(CountSeries(*metrics, "fabricpulse_pair_busbw_bytes_per_second{"),
            3)
      << *metrics;
  EXPECT_GT(
      SeriesValue(*metrics,
                  absl::StrCat("fabricpulse_pair_busbw_bytes_per_second{"
                               "node_a=\"",
                               n0, "\",node_b=\"", n1, "\",path=\"network\"}")),
      0);
}

TEST_F(MatrixIntegrationTest, BadInputChangesNothing) {
  CliResult zero = Cli({"matrix", "--bytes", "0"});
  EXPECT_EQ(zero.exit_code, client::kExitBadInput) << zero.err;
  EXPECT_EQ(zero.err,
            "fabricpulse: --bytes: 0 is out of range; allowed: 1 B to 1T\n");
  CliResult format = Cli({"matrix", "--output", "xml"});
  EXPECT_EQ(format.exit_code, client::kExitBadInput);
  EXPECT_TRUE(absl::StrContains(format.err, "--output")) << format.err;
  CliResult unknown = Cli({"matrix", "--sweep", "sw-nope"});
  EXPECT_EQ(unknown.exit_code, client::kExitBadInput) << unknown.err;
  CliResult one =
      Cli({"matrix", "--nodes", cluster_->NodeName(0) + ",no-such-node"});
  EXPECT_NE(one.exit_code, 0);
  EXPECT_TRUE(ListSweeps(*Connect(cluster_->coordinator())).empty());
}

}  // namespace
}  // namespace fabricpulse::testing
