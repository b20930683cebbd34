// A matrix's flagged pairs stay flagged only when a second matrix flagged
// them too (one bad number is a suspect, never a culprit).
#include "client/output/matrix_confirm.h"

#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fabricpulse::client {
namespace {
namespace FP_UNITY_ID {

using ::testing::HasSubstr;

// One pairwise step of 4 ranks on two nodes; `flagged` lists the flagged
// pairs' rank_a.
std::vector<v1::StepResult> Step(const std::vector<int>& flagged) {
  std::vector<v1::StepResult> steps(1);
  steps[0].mutable_step()->set_op("pairwise");
  steps[0].mutable_step()->set_bytes(1 << 20);
  for (auto [a, b] : std::vector<std::pair<int, int>>{{0, 2}, {1, 3}}) {
    v1::PairResult* p = steps[0].add_pairs();
    p->set_rank_a(a);
    p->set_rank_b(b);
    p->set_node_a("node-a");
    p->set_node_b("node-b");
    p->set_path("network");
    p->set_busbw_bytes_per_second(1e9);
    p->set_flagged(std::count(flagged.begin(), flagged.end(), a) > 0);
  }
  return steps;
}

TEST(MatrixConfirmTest, OnlyPairsFlaggedTwiceStayFlagged) {
  PairMatrix first = BuildPairMatrix("sw-1", 4, Step({0, 1}));
  ASSERT_EQ(first.flagged, 2);
  // The second matrix flags 0-2 again but not 1-3 (a one-off).
  const int cleared =
      ConfirmFlagged(first, BuildPairMatrix("sw-2", 4, Step({0})));
  EXPECT_EQ(cleared, 1);
  EXPECT_EQ(first.flagged, 1);
  EXPECT_EQ(first.groups[0].flagged, 1);
  EXPECT_TRUE(first.groups[0].pairs[0].flagged());
  EXPECT_FALSE(first.groups[0].pairs[1].flagged());
  EXPECT_EQ(first.confirmed_by, "sw-2");
  std::ostringstream table, json;
  PrintPairMatrix(first, {}, table);
  EXPECT_THAT(table.str(), HasSubstr("1 of 2 pair(s) flagged"));
  EXPECT_THAT(table.str(), HasSubstr(", each again in sweep sw-2\n"));
  OutputOptions as_json;
  as_json.format = OutputFormat::kJson;
  PrintPairMatrix(first, as_json, json);
  EXPECT_THAT(json.str(), HasSubstr("\"confirmed_by\": \"sw-2\""));
}

TEST(MatrixConfirmTest, ASecondMatrixFlaggingNothingClearsEverything) {
  PairMatrix first = BuildPairMatrix("sw-1", 4, Step({0, 1}));
  EXPECT_EQ(ConfirmFlagged(first, BuildPairMatrix("sw-2", 4, Step({}))), 2);
  EXPECT_EQ(first.flagged, 0);
  // A pair flagged only the second time is not flagged either.
  PairMatrix healthy = BuildPairMatrix("sw-3", 4, Step({}));
  EXPECT_EQ(ConfirmFlagged(healthy, BuildPairMatrix("sw-4", 4, Step({1}))), 0);
  EXPECT_EQ(healthy.flagged, 0);
  std::ostringstream json;
  OutputOptions as_json;
  as_json.format = OutputFormat::kJson;
  PrintPairMatrix(BuildPairMatrix("sw-5", 4, Step({})), as_json, json);
  EXPECT_THAT(json.str(), HasSubstr("\"confirmed_by\": null"));
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::client
