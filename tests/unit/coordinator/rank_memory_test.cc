#include "daemon/coordinator/rank_memory.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fabricpulse::coordinator {
namespace {

using ::testing::HasSubstr;

constexpr uint64_t kGiB = 1ull << 30;

v1::AgentInfo Agent(const std::string& node,
                    std::vector<std::pair<int, uint64_t>> workers) {
  v1::AgentInfo info;
  info.set_node_name(node);
  int index = 0;
  for (const auto& [gpu, free] : workers) {
    v1::WorkerInfo* w = info.add_workers();
    w->set_local_index(index++);
    w->set_gpu(gpu);
    w->set_free_memory_bytes(free);
  }
  return info;
}

TEST(RankMemoriesTest, GpuRanksInRankOrder) {
  auto ranks = RankMemories({Agent("a", {{0, 80 * kGiB}, {1, 70 * kGiB}}),
                             Agent("b", {{0, 60 * kGiB}})},
                            {"boot-a", "boot-b"});
  ASSERT_TRUE(ranks.ok()) << ranks.status();
  ASSERT_EQ(ranks->size(), 3u);
  EXPECT_EQ((*ranks)[0].rank, 0);
  EXPECT_EQ((*ranks)[0].free_bytes, 80 * kGiB);
  EXPECT_EQ((*ranks)[0].where, "rank 0 (node a, GPU 0)");
  EXPECT_EQ((*ranks)[1].where, "rank 1 (node a, GPU 1)");
  // GPU 0 of another machine is another pool.
  EXPECT_EQ((*ranks)[2].free_bytes, 60 * kGiB);
  EXPECT_EQ((*ranks)[2].where, "rank 2 (node b, GPU 0)");
}

TEST(RankMemoriesTest, RanksOfOneMachineShareItsHostMemory) {
  // Two agents on one machine (one boot id), a third elsewhere.
  auto ranks = RankMemories(
      {Agent("a", {{-1, 12 * kGiB}, {-1, 12 * kGiB}}),
       Agent("b", {{-1, 12 * kGiB}}), Agent("c", {{-1, 12 * kGiB}})},
      {"boot-1", "boot-1", "boot-2"});
  ASSERT_TRUE(ranks.ok()) << ranks.status();
  ASSERT_EQ(ranks->size(), 4u);
  for (int r = 0; r < 3; ++r) EXPECT_EQ((*ranks)[r].free_bytes, 4 * kGiB);
  EXPECT_EQ((*ranks)[0].where,
            "rank 0 (node a, host memory shared by 3 ranks)");
  EXPECT_EQ((*ranks)[3].free_bytes, 12 * kGiB);
  EXPECT_EQ((*ranks)[3].where, "rank 3 (node c, host memory)");
}

TEST(RankMemoriesTest, WithoutABootIdTheNodeIsTheMachine) {
  auto ranks = RankMemories({Agent("a", {{-1, 8 * kGiB}, {-1, 8 * kGiB}}),
                             Agent("b", {{-1, 8 * kGiB}})},
                            {});
  ASSERT_TRUE(ranks.ok()) << ranks.status();
  EXPECT_EQ((*ranks)[0].free_bytes, 4 * kGiB);
  EXPECT_EQ((*ranks)[2].free_bytes, 8 * kGiB);
}

TEST(RankMemoriesTest, TwoRanksOnOneGpuShareIt) {
  auto ranks =
      RankMemories({Agent("a", {{0, 10 * kGiB}, {0, 10 * kGiB}})}, {"boot"});
  ASSERT_TRUE(ranks.ok()) << ranks.status();
  EXPECT_EQ((*ranks)[1].free_bytes, 5 * kGiB);
  EXPECT_EQ((*ranks)[1].where, "rank 1 (node a, GPU 0 shared by 2 ranks)");
}

TEST(RankMemoriesTest, AnUnknownFigureNamesTheRank) {
  v1::AgentInfo b = Agent("b", {{3, 1}});
  b.mutable_workers(0)->clear_free_memory_bytes();
  auto ranks = RankMemories({Agent("a", {{0, kGiB}}), b}, {});
  ASSERT_FALSE(ranks.ok());
  EXPECT_EQ(ranks.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(ranks.status().message()),
              HasSubstr("rank 1 (node b, GPU 3) has no figure"));
  EXPECT_THAT(std::string(ranks.status().message()),
              HasSubstr("give --max-bytes a size instead"));
}

}  // namespace
}  // namespace fabricpulse::coordinator
