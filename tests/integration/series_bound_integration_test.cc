// The Prometheus series count is bounded (issue 12, item 5), against real
// processes (a coordinator with one plan, 2 agents x 2 Gloo ranks): varied
// ad-hoc sweeps (ops, sizes, placements, member sets) leave the series of
// the last ad-hoc sweep only, within the bound docs/metrics.md states, on
// the coordinator and on every node; a plan sweep's series are all there.
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "tests/integration/metrics_scrape.h"
#include "tests/integration/test_support.h"

namespace fabricpulse::testing {
namespace {

// docs/metrics.md, "Series count", for this cluster: P = 1 plan of O = 1 op
// and S = 8 steps, no schedules, N = 2 nodes, R = 4 ranks, G = 2 ranks per
// node, the coordinator's step cap (512) and the agent's per-rank cap (at
// most 4 plans of 8 ops at 2 sizes: 64 per rank).
constexpr int kPlans = 1, kPlanOps = 1, kPlanSteps = 8;
constexpr int kNodes = 2, kRanks = 4, kRanksPerNode = 2, kStepCap = 512;
constexpr int kRankCap = 64;
constexpr int kCoordinatorBound = 4 + 25 * (kPlans + 1) + 7 * kPlans +
                                  (kPlanOps + 9) + 8 * (kPlanSteps + kStepCap) +
                                  kRanks + 2 * kNodes + 2 * kNodes * kRanks;
// 32: the NIC series (2 per NIC, at most 16 NICs).
constexpr int kNodeBound = 5 + 32 + kRanksPerNode * kRankCap;

// The agent's per-rank series a sweep leaves on a node, per local rank:
// the smallest and the largest size of each op (one when it ran one size),
// out of place unless the sweep ran in place only.
int RankSeriesPerRank(const std::vector<v1::StepResult>& results,
                      const std::string& placement) {
  std::map<std::string, std::set<uint64_t>> sizes;
  for (const v1::StepResult& r : results) {
    if (r.step().in_place() == (placement == "in_place")) {
      sizes[r.step().op()].insert(r.step().bytes());
    }
  }
  int n = 0;
  for (const auto& [op, s] : sizes) n += std::min<int>(s.size(), 2);
  return n;
}

class SeriesBoundTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    char path[] = "/tmp/fabricpulse-series-config-XXXXXX";
    const int fd = mkstemp(path);
    ASSERT_GE(fd, 0);
    close(fd);
    config_ = new std::string(path);
    std::ofstream(*config_) << "plans:\n"
                               "  quick:\n"
                               "    ops: [all_reduce]\n"
                               "    min_bytes: 8\n"
                               "    max_bytes: 4K\n"
                               "    factor: 8\n"
                               "    iters: 2\n"
                               "    warmup: 1\n"
                               "    placement: both\n";
    client::LocalClusterOptions options;
    options.bin_dir = BinDir();
    options.agents = kNodes;
    options.ranks = kRanksPerNode;
    options.config_file = *config_;
    auto cluster = StartCluster(options);
    EXPECT_TRUE(cluster.ok()) << cluster.status();
    if (cluster.ok()) cluster_ = cluster->release();
  }
  static void TearDownTestSuite() {
    delete cluster_;
    cluster_ = nullptr;
    if (config_ != nullptr) std::remove(config_->c_str());
    delete config_;
    config_ = nullptr;
  }
  void SetUp() override {
    ASSERT_NE(cluster_, nullptr);
    stub_ = Connect(cluster_->coordinator());
  }

  std::string Coordinator() {
    auto text = ScrapeMetrics(cluster_->coordinator_metrics());
    EXPECT_TRUE(text.ok()) << text.status();
    return text.ok() ? *text : "";
  }
  std::string Node(int i) {
    auto text = ScrapeMetrics(cluster_->agent_metrics()[i]);
    EXPECT_TRUE(text.ok()) << text.status();
    return text.ok() ? *text : "";
  }
  // Series of `family` whose label set contains `label`.
  static int Count(const std::string& text, const std::string& family,
                   const std::string& label) {
    int n = 0;
    for (absl::string_view line : absl::StrSplit(text, '\n')) {
      if (absl::StartsWith(line, family + "{") &&
          absl::StrContains(line, label)) {
        ++n;
      }
    }
    return n;
  }

  static client::LocalCluster* cluster_;
  static std::string* config_;
  std::unique_ptr<v1::CoordinatorService::Stub> stub_;
};
client::LocalCluster* SeriesBoundTest::cluster_ = nullptr;
std::string* SeriesBoundTest::config_ = nullptr;

TEST_F(SeriesBoundTest, AdhocSweepsStayWithinTheStatedBound) {
  const int coordinator_start = CountSeries(Coordinator());
  const int node_start[] = {CountSeries(Node(0)), CountSeries(Node(1))};
  EXPECT_LE(coordinator_start, kCoordinatorBound);

  struct AdHoc {
    std::vector<std::string> ops;
    uint64_t min_bytes, max_bytes;
    double factor;
    const char* placement;
    std::vector<int> nodes;  // indices into the cluster
  };
  const AdHoc sweeps[] = {
      {{"all_reduce", "alltoall"}, 8, 32768, 8, "both", {0, 1}},
      {{"broadcast"}, 24, 6144, 4, "out_of_place", {0}},
      {{"reduce_scatter", "all_gather"}, 40, 40960, 2, "in_place", {1}},
      {{"sendrecv"}, 100, 100, 2, "both", {0, 1}},
      {{"all_reduce"}, 72, 72 << 12, 2, "both", {0}},
  };
  // Each node's series are its last sweep's.
  std::map<int, int> node_steps;   // node -> steps of its last sweep
  std::map<int, int> node_series;  // node -> its per-rank series
  for (const AdHoc& a : sweeps) {
    v1::SweepSpec spec = QuickSpec(a.ops, a.max_bytes);
    spec.set_min_bytes(a.min_bytes);
    spec.set_factor(a.factor);
    spec.set_placement(a.placement);
    spec.set_check(false);
    std::vector<std::string> nodes;
    for (int n : a.nodes) nodes.push_back(cluster_->NodeName(n));
    SweepOutcome outcome = RunSweep(*stub_, spec, nodes);
    ASSERT_TRUE(outcome.status.ok()) << outcome.status;
    const int steps = static_cast<int>(outcome.results.size());
    ASSERT_GT(steps, 0);
    for (int n : a.nodes) {
      node_steps[n] = steps;
      node_series[n] =
          kRanksPerNode * RankSeriesPerRank(outcome.results, a.placement);
    }

    const std::string coordinator = Coordinator();
    SCOPED_TRACE(absl::StrCat(a.ops[0], " on ", nodes.size(), " node(s), ",
                              steps, " steps"));
    // Exactly the last ad-hoc sweep's steps.
    EXPECT_EQ(Count(coordinator, "fabricpulse_busbw_bytes_per_second",
                    "plan=\"adhoc\""),
              steps);
    EXPECT_LE(
        Count(coordinator, "fabricpulse_latency_seconds", "plan=\"adhoc\""),
        3 * steps);
    EXPECT_LE(CountSeries(coordinator), kCoordinatorBound);
    for (int n = 0; n < kNodes; ++n) {
      const std::string node = Node(n);
      // The node's last ad-hoc sweep, summed up per rank.
      EXPECT_EQ(Count(node, "fabricpulse_agent_rank_latency_seconds",
                      "plan=\"adhoc\""),
                node_series.count(n) ? node_series[n] : 0)
          << cluster_->NodeName(n);
      EXPECT_LE(CountSeries(node), kNodeBound) << cluster_->NodeName(n);
    }
  }
  // Before vs after: what grew is the last sweeps' per-step series only.
  const std::string coordinator = Coordinator();
  EXPECT_LE(CountSeries(coordinator) - coordinator_start,
            8 * node_steps[0] + 13 + 9 + kRanks + kNodes * kRanks)
      << coordinator;
  for (int n = 0; n < kNodes; ++n) {
    EXPECT_LE(CountSeries(Node(n)) - node_start[n], node_series[n]);
  }
}

// The opposite: a plan sweep's series are all exported, on the coordinator
// and on each node.
TEST_F(SeriesBoundTest, PlanSweepSeriesArePresent) {
  CliResult r = RunCli(
      {"--coordinator", cluster_->coordinator(), "sweep", "--plan", "quick"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string coordinator = Coordinator();
  EXPECT_EQ(Count(coordinator, "fabricpulse_busbw_bytes_per_second",
                  "plan=\"quick\""),
            kPlanSteps)
      << coordinator;
  EXPECT_EQ(Count(coordinator, "fabricpulse_algbw_bytes_per_second",
                  "plan=\"quick\""),
            kPlanSteps);
  EXPECT_GE(Count(coordinator, "fabricpulse_latency_seconds", "plan=\"quick\""),
            kPlanSteps);  // mean at least
  EXPECT_EQ(Count(coordinator, "fabricpulse_regression", "plan=\"quick\""),
            kPlanSteps);
  EXPECT_EQ(
      Count(coordinator, "fabricpulse_regression_confirmed", "plan=\"quick\""),
      kPlanSteps);
  EXPECT_LE(CountSeries(coordinator), kCoordinatorBound);
  for (int n = 0; n < kNodes; ++n) {
    const std::string node = Node(n);
    // all_reduce at 8 B and 4 KiB (its smallest and largest size), per
    // local rank, out of place.
    EXPECT_EQ(
        Count(node, "fabricpulse_agent_rank_latency_seconds", "plan=\"quick\""),
        kRanksPerNode * 2)
        << cluster_->NodeName(n);
    EXPECT_EQ(
        Count(node, "fabricpulse_agent_rank_latency_seconds", "size=\"4096\""),
        kRanksPerNode);
  }
}

}  // namespace
}  // namespace fabricpulse::testing
