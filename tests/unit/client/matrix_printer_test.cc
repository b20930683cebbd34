#include "client/output/matrix_printer.h"

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fabricpulse::client {
namespace {

using ::testing::HasSubstr;

v1::PairResult Pair(int a, int b, const std::string& na, const std::string& nb,
                    const std::string& path, double busbw,
                    bool flagged = false) {
  v1::PairResult p;
  p.set_rank_a(a);
  p.set_rank_b(b);
  p.set_node_a(na);
  p.set_node_b(nb);
  p.set_path(path);
  p.set_busbw_bytes_per_second(busbw);
  p.set_algbw_bytes_per_second(busbw);
  p.set_time_seconds(1e6 / busbw);
  p.set_flagged(flagged);
  return p;
}

// 2 nodes x 2 ranks, 3 rounds; node-b's rank 3 is slow across the network.
std::vector<v1::StepResult> Rounds() {
  std::vector<v1::StepResult> rounds(3);
  for (auto& r : rounds) {
    r.mutable_step()->set_op("pairwise");
    r.mutable_step()->set_bytes(1 << 20);
  }
  *rounds[0].add_pairs() = Pair(0, 3, "node-a", "node-b", "network", 1e8, true);
  *rounds[0].add_pairs() = Pair(1, 2, "node-a", "node-b", "network", 1e9);
  *rounds[1].add_pairs() = Pair(0, 1, "node-a", "node-a", "pcie_shm", 5e9);
  *rounds[1].add_pairs() = Pair(2, 3, "node-b", "node-b", "pcie_shm", 4e9);
  *rounds[2].add_pairs() = Pair(0, 2, "node-a", "node-b", "network", 2e9);
  *rounds[2].add_pairs() = Pair(1, 3, "node-b", "node-a", "network", 3e9);
  return rounds;
}

TEST(MatrixPrinterTest, GroupsByNodePair) {
  const PairMatrix m = BuildPairMatrix("sw-1", 4, Rounds());
  EXPECT_EQ(m.pairs, 6);
  EXPECT_EQ(m.flagged, 1);
  ASSERT_EQ(m.groups.size(), 3u);
  // node-a/node-a, node-a/node-b (the 1-3 pair's nodes sorted), node-b/b.
  EXPECT_EQ(m.groups[0].node_a, "node-a");
  EXPECT_EQ(m.groups[0].node_b, "node-a");
  EXPECT_EQ(m.groups[1].node_b, "node-b");
  ASSERT_EQ(m.groups[1].pairs.size(), 4u);
  EXPECT_EQ(m.groups[1].pairs[0].rank_a(), 0);  // sorted by ranks
  EXPECT_EQ(m.groups[1].pairs[0].rank_b(), 2);
  EXPECT_DOUBLE_EQ(m.groups[1].min_busbw, 1e8);
  EXPECT_DOUBLE_EQ(m.groups[1].median_busbw, 1.5e9);
  EXPECT_EQ(m.groups[1].flagged, 1);
  EXPECT_EQ(m.groups[2].path, "pcie_shm");
}

TEST(MatrixPrinterTest, TableJsonAndCsv) {
  const PairMatrix m = BuildPairMatrix("sw-1", 4, Rounds());
  OutputOptions options;
  std::ostringstream table;
  PrintPairMatrix(m, options, table);
  EXPECT_THAT(table.str(),
              HasSubstr("# node-a <-> node-b  network  4 pair(s)  busbw min "
                        "0.10 median 1.50 GB/s  1 flagged\n"));
  EXPECT_THAT(table.str(), HasSubstr("SLOW\n"));
  EXPECT_THAT(table.str(), HasSubstr("# 1 of 6 pair(s) flagged"));

  options.format = OutputFormat::kJson;
  std::ostringstream json;
  PrintPairMatrix(m, options, json);
  EXPECT_THAT(json.str(), HasSubstr("\"sweep_id\": \"sw-1\", \"nranks\": 4, "
                                    "\"flagged\": 1, \"pairs\": [{"));
  EXPECT_THAT(json.str(), HasSubstr("\"busbw_bytes_per_second\": 100000000"));
  EXPECT_THAT(json.str(), HasSubstr("\"median_busbw_bytes_per_second\": "
                                    "1500000000"));

  options.format = OutputFormat::kCsv;
  std::ostringstream csv;
  PrintPairMatrix(m, options, csv);
  EXPECT_THAT(csv.str(),
              HasSubstr("sweep_id,bytes,rank_a,rank_b,node_a,node_b,path,"));
  EXPECT_THAT(csv.str(),
              HasSubstr("\nsw-1,1048576,0,3,node-a,node-b,network,"));
  const std::string text = csv.str();
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 7);
}

TEST(MatrixPrinterTest, StepsWithoutPairsMakeNoMatrix) {
  std::vector<v1::StepResult> steps(2);
  steps[0].mutable_step()->set_op("all_reduce");
  const PairMatrix m = BuildPairMatrix("sw-2", 2, steps);
  EXPECT_EQ(m.pairs, 0);
  EXPECT_TRUE(m.groups.empty());
}

}  // namespace
}  // namespace fabricpulse::client
