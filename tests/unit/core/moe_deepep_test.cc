// DeepEP's presets, routing rules and byte accounting (moe_preset.h,
// moe_routing.h, moe_deepep.h), against DeepEP's tests/legacy/*.py.
#include "daemon/core/moe_deepep.h"

#include <algorithm>
#include <numeric>
#include <set>

#include "daemon/core/moe_data.h"
#include "daemon/core/moe_preset.h"
#include "daemon/core/moe_routing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fabricpulse::core {
namespace {
namespace FP_UNITY_ID {

using ::testing::HasSubstr;

MoeShape Preset(const char* name, std::vector<std::string> explicit_keys = {},
                MoeShape base = MoeShape()) {
  EXPECT_TRUE(ApplyMoePreset(name, explicit_keys, base).ok());
  return base;
}

// The presets' shapes are DeepEP's tests' defaults.
TEST(MoePresetTest, PresetsAreDeepEpsTestShapes) {
  const MoeShape ll = Preset("deepep-ll");
  EXPECT_EQ(ll.preset, "deepep-ll");
  EXPECT_EQ(ll.tokens, 128);
  EXPECT_EQ(ll.hidden, 7168);
  EXPECT_EQ(ll.topk, 8);
  EXPECT_EQ(ll.experts_total, 288);
  EXPECT_EQ(ll.masked, 10);
  EXPECT_TRUE(ll.per_selection);
  EXPECT_EQ(ll.dtype, "fp8_e4m3");
  EXPECT_TRUE(ll.fp8_scales);
  EXPECT_EQ(ll.header_bytes, 16);
  EXPECT_EQ(ll.combine_dtype, "bfloat16");
  EXPECT_EQ(ll.topk_groups, 0);
  // fp8 row: 7168 values + 56 float32 scales + the 16-byte header.
  EXPECT_EQ(MoeRowElements(ll, Op::kMoeDispatch), 7168u + 224 + 16);
  EXPECT_EQ(MoeRowElements(ll, Op::kMoeCombine), 7168u);
  EXPECT_EQ(MoeStepDType(ll, Op::kMoeCombineWeighted), DType::kBfloat16);

  const MoeShape normal = Preset("deepep-normal");
  EXPECT_EQ(normal.tokens, 4096);
  EXPECT_EQ(normal.hidden, 7168);
  EXPECT_EQ(normal.experts_total, 256);
  EXPECT_EQ(normal.topk_groups, 4);
  EXPECT_EQ(normal.masked, 0);
  EXPECT_FALSE(normal.per_selection);
  EXPECT_EQ(normal.header_bytes, 0);
  EXPECT_EQ(MoeRowElements(normal, Op::kMoeDispatch), 7168u + 224);

  // The default shape's rows are as before the presets.
  EXPECT_EQ(MoeRowElements(MoeShape(), Op::kMoeDispatch), 7168u);
  EXPECT_EQ(MoeStepDType(MoeShape(), Op::kMoeCombine), DType::kBfloat16);
}

// Explicit flags win over the preset (a reduced preset); an explicit
// per-rank expert count drops the total.
TEST(MoePresetTest, ExplicitKeysOverrideThePreset) {
  MoeShape base;
  base.tokens = 16;
  base.hidden = 256;
  base.experts_per_rank = 4;
  const MoeShape reduced =
      Preset("deepep-ll", {"moe_tokens", "moe_hidden", "moe_experts"}, base);
  EXPECT_EQ(reduced.tokens, 16);
  EXPECT_EQ(reduced.hidden, 256);
  EXPECT_EQ(reduced.experts_per_rank, 4);
  EXPECT_EQ(reduced.experts_total, 0);
  EXPECT_EQ(reduced.masked, 10);
  MoeShape shape;
  const absl::Status bad = ApplyMoePreset("deepep", {}, shape);
  EXPECT_THAT(bad.message(),
              HasSubstr("moe_preset: deepep is not a preset; allowed: "
                        "deepep-ll, deepep-normal"));
}

// Experts per rank: the total over the ranks, rounded down (DeepEP's first
// tests; today's assert num_experts % num_ranks == 0); groups: one per node
// when the nodes hold as many ranks.
TEST(MoePresetTest, ResolvesExpertsAndGroupsForTheRanks) {
  MoeShape ll = Preset("deepep-ll");
  ResolveMoeForRanks(ll, 8, {8});
  EXPECT_EQ(ll.experts_per_rank, 36);
  EXPECT_EQ(ll.group_ranks, 0);
  EXPECT_TRUE(ValidateMoeShape(ll, 8).ok());
  MoeShape one = Preset("deepep-ll");
  ResolveMoeForRanks(one, 1, {1});
  EXPECT_EQ(one.experts_per_rank, 288);  // DeepEP's total on one GPU
  EXPECT_TRUE(ValidateMoeShape(one, 1).ok());
  MoeShape five = Preset("deepep-ll");
  ResolveMoeForRanks(five, 5, {5});
  EXPECT_EQ(five.experts_per_rank, 57);

  MoeShape normal = Preset("deepep-normal");
  ResolveMoeForRanks(normal, 16, {8, 8});
  EXPECT_EQ(normal.experts_per_rank, 16);
  EXPECT_EQ(normal.group_ranks, 8);
  EXPECT_EQ(MoeGroups(normal, 16), 2);
  EXPECT_EQ(MoeTopkGroups(normal, 16), 2);  // min(nodes, 4)
  EXPECT_TRUE(ValidateMoeShape(normal, 16).ok());
  MoeShape uneven = Preset("deepep-normal");
  ResolveMoeForRanks(uneven, 3, {2, 1});
  EXPECT_EQ(uneven.group_ranks, 0);
  MoeShape one_node = Preset("deepep-normal");
  ResolveMoeForRanks(one_node, 8, {8});
  EXPECT_EQ(one_node.group_ranks, 0);
  EXPECT_EQ(MoeTopkGroups(one_node, 8), 1);
}

TEST(MoePresetTest, PresetFieldsAreCheckedAndNamed) {
  MoeShape bad = Preset("deepep-ll");
  bad.hidden = 200;
  EXPECT_THAT(ValidateMoeShape(bad, 2).message(),
              HasSubstr("moe_hidden: 200 is out of range; allowed: a "
                        "multiple of 128"));
  MoeShape masked = Preset("deepep-ll");
  masked.masked = 2000;
  EXPECT_THAT(ValidateMoeShape(masked, 2).message(),
              HasSubstr("moe_masked: 2000 is out of range; allowed: 0 to "
                        "1024"));
  MoeShape groups;
  groups.group_ranks = 3;
  EXPECT_THAT(ValidateMoeShape(groups, 4).message(),
              HasSubstr("moe_group_ranks: 3 is out of range"));
  MoeShape name;
  name.preset = "x";
  EXPECT_THAT(ValidateMoeShape(name, 4).message(),
              HasSubstr("moe_preset: x is not a preset"));
}

// DeepEP's group-limited routing (test_internode.py), recomputed here from
// the scores: a group's score is its best expert's, the token keeps the
// top-4 groups and takes its top-k experts within them. 8 groups of 2
// ranks x 4 experts, a fixed seed.
TEST(MoeDeepEpRoutingTest, GroupLimitedRoutingFollowsDeepEpsRule) {
  MoeShape shape;
  shape.tokens = 64;
  shape.hidden = 128;
  shape.topk = 8;
  shape.experts_per_rank = 4;
  shape.group_ranks = 2;
  shape.topk_groups = 4;
  const int n = 16, experts = 64, per_group = 8, groups = 8;
  ASSERT_TRUE(ValidateMoeShape(shape, n).ok());
  std::vector<int> per_expert(experts, 0), per_group_count(groups, 0);
  for (int s = 0; s < n; ++s) {
    const SourceRouting routing = RouteSource(shape, n, s);
    for (int t = 0; t < shape.tokens; ++t) {
      std::vector<double> best(groups, -1);
      for (int e = 0; e < experts; ++e) {
        best[e / per_group] =
            std::max(best[e / per_group], MoeExpertScore(shape, s, t, e));
      }
      std::vector<int> order(groups);
      std::iota(order.begin(), order.end(), 0);
      std::sort(order.begin(), order.end(),
                [&](int a, int b) { return best[a] > best[b]; });
      std::vector<std::pair<double, int>> candidates;
      for (int i = 0; i < 4; ++i) {
        for (int e = order[i] * per_group; e < (order[i] + 1) * per_group;
             ++e) {
          candidates.emplace_back(MoeExpertScore(shape, s, t, e), e);
        }
      }
      std::sort(candidates.rbegin(), candidates.rend());
      std::set<int> want;
      for (int k = 0; k < shape.topk; ++k) want.insert(candidates[k].second);
      const std::set<int> got(
          routing.experts.begin() + routing.expert_begin[t],
          routing.experts.begin() + routing.expert_begin[t + 1]);
      ASSERT_EQ(got, want) << "rank " << s << " token " << t;
      std::set<int> token_groups;
      for (int e : got) {
        per_expert[e]++;
        token_groups.insert(e / per_group);
      }
      for (int g : token_groups) per_group_count[g]++;
      EXPECT_LE(token_groups.size(), 4u);
    }
  }
  // Every selection counted once; every group reached by some token.
  EXPECT_EQ(std::accumulate(per_expert.begin(), per_expert.end(), 0),
            n * shape.tokens * shape.topk);
  for (int g = 0; g < groups; ++g) EXPECT_GT(per_group_count[g], 0) << g;
  // The same seed gives the same counts; another seed others.
  std::vector<int> again(experts, 0);
  for (int s = 0; s < n; ++s) {
    for (int e : RouteSource(shape, n, s).experts) again[e]++;
  }
  EXPECT_EQ(again, per_expert);
  MoeShape other = shape;
  other.seed = 2;
  EXPECT_NE(RouteSource(other, n, 0).experts, RouteSource(shape, n, 0).experts);
}

// DeepEP's low-latency masking: 10 random (token, slot) positions per rank
// set to -1 (a position may repeat); a row per kept selection.
TEST(MoeDeepEpRoutingTest, MaskedSelectionsAndARowPerSelection) {
  MoeShape shape = Preset("deepep-ll");
  shape.tokens = 16;
  shape.hidden = 256;
  shape.experts_total = 0;
  shape.experts_per_rank = 4;
  const int n = 4;
  ASSERT_TRUE(ValidateMoeShape(shape, n).ok());
  const std::vector<uint64_t> rows = MoeRowMatrix(shape, n);
  for (int s = 0; s < n; ++s) {
    const SourceRouting routing = RouteSource(shape, n, s);
    const int kept = static_cast<int>(routing.experts.size());
    EXPECT_GE(kept, shape.tokens * shape.topk - 10);
    EXPECT_LT(kept, shape.tokens * shape.topk);
    // One row per kept selection, each to its expert's rank.
    ASSERT_EQ(routing.dests.size(), routing.experts.size());
    uint64_t sent = 0;
    for (int d = 0; d < n; ++d) sent += rows[s * n + d];
    EXPECT_EQ(sent, static_cast<uint64_t>(kept));
    for (int t = 0; t < shape.tokens; ++t) {
      std::vector<int> ranks;
      for (uint32_t i = routing.expert_begin[t];
           i < routing.expert_begin[t + 1]; ++i) {
        ranks.push_back(routing.experts[i] / shape.experts_per_rank);
      }
      std::sort(ranks.begin(), ranks.end());
      EXPECT_EQ(ranks,
                std::vector<int>(routing.dests.begin() + routing.begin[t],
                                 routing.dests.begin() + routing.begin[t + 1]));
    }
  }
}

// Low latency, by hand: 2 ranks, 2 tokens each, top-2, nothing masked:
// 4 selections a rank at 256 + 256 / 128 * 4 + 16 = 280 bytes (fp8
// dispatch), 256 * 2 = 512 bytes (bf16 combine), whichever rank they go to.
TEST(MoeDeepEpBytesTest, LowLatencyCountsEverySelectionAtDeepEpsSize) {
  MoeShape shape = Preset("deepep-ll");
  shape.tokens = 2;
  shape.hidden = 256;
  shape.topk = 2;
  shape.masked = 0;
  shape.experts_total = 0;
  shape.experts_per_rank = 2;
  ASSERT_TRUE(ValidateMoeShape(shape, 2).ok());
  const DeepEpBytes dispatch =
      DeepEpBytesOf(shape, Op::kMoeDispatch, 2, {"a", "b"});
  EXPECT_TRUE(dispatch.low_latency);
  EXPECT_DOUBLE_EQ(dispatch.bytes.value_or(-1), 4 * 280.0);
  EXPECT_FALSE(dispatch.nvl_bytes.has_value());
  const DeepEpBytes combine =
      DeepEpBytesOf(shape, Op::kMoeCombineWeighted, 2, {"a", "b"});
  EXPECT_DOUBLE_EQ(combine.bytes.value_or(-1), 4 * 512.0);
}

// Normal, by hand: 1 expert a rank and top-k = every expert, so every
// token goes to every rank. 3 tokens of 128 elements. NVLink: a rank
// receives 3 tokens from each rank (itself included) x 256 bytes (bf16),
// x (1 + 4/128) / 2 in fp8. RDMA: one send per token per distinct node
// (its own included): 2 nodes -> 6 x 256 bytes; on one node none.
TEST(MoeDeepEpBytesTest, NormalCountsTokensPerRankAndOncePerNode) {
  MoeShape shape;
  shape.tokens = 3;
  shape.hidden = 128;
  shape.experts_per_rank = 1;
  shape.topk = 4;
  const int n = 4;
  const std::vector<std::string> two_nodes = {"a", "a", "b", "b"};
  const DeepEpBytes bf16 = DeepEpBytesOf(shape, Op::kMoeDispatch, n, two_nodes);
  EXPECT_FALSE(bf16.low_latency);
  EXPECT_DOUBLE_EQ(bf16.nvl_bytes.value_or(-1), 4 * 3 * 256.0);
  EXPECT_DOUBLE_EQ(bf16.rdma_bytes.value_or(-1), 3 * 2 * 256.0);
  // The probe's own split of the same exchange: from the other node's two
  // ranks, 3 rows each (no per-node deduplication, no self rows).
  const MoeRowsByPath ours = MoeRowsPerRank(shape, n, two_nodes);
  EXPECT_DOUBLE_EQ(ours.self, 3);
  EXPECT_DOUBLE_EQ(ours.intra_node, 3);
  EXPECT_DOUBLE_EQ(ours.network, 6);
  EXPECT_FALSE(DeepEpBytesOf(shape, Op::kMoeDispatch, n, {"a", "a", "a", "a"})
                   .rdma_bytes.has_value());

  MoeShape fp8 = shape;
  fp8.dtype = "fp8_e4m3";
  fp8.combine_dtype = "bfloat16";
  const DeepEpBytes scaled = DeepEpBytesOf(fp8, Op::kMoeDispatch, n, two_nodes);
  EXPECT_DOUBLE_EQ(scaled.nvl_bytes.value_or(-1),
                   4 * 3 * 256.0 * (1 + 4.0 / 128) / 2);
  EXPECT_DOUBLE_EQ(scaled.rdma_bytes.value_or(-1),
                   3 * 2 * 256.0 * (1 + 4.0 / 128) / 2);
  const DeepEpBytes back = DeepEpBytesOf(fp8, Op::kMoeCombine, n, two_nodes);
  EXPECT_DOUBLE_EQ(back.nvl_bytes.value_or(-1), 4 * 3 * 256.0);
}

// The weighted combine: each token's returned rows, weighted by the top-k
// weights of the selections they carry, summed exactly; a wrong row shows.
TEST(MoeDeepEpDataTest, WeightedCombineSumsTheWeightedRows) {
  for (const char* preset : {"deepep-ll", "deepep-normal"}) {
    SCOPED_TRACE(preset);
    MoeShape shape = Preset(preset);
    shape.tokens = 32;
    shape.hidden = 128;
    shape.experts_total = 0;
    shape.experts_per_rank = 4;
    const int n = 3;
    for (int r = 0; r < n; ++r) {
      auto x = BuildMoeExchange(Op::kMoeCombineWeighted, shape, n, r);
      ASSERT_TRUE(x.ok()) << x.status();
      // The rows as the destinations send them back, in bf16.
      std::vector<uint16_t> recv(x->recv_total * x->row_elements);
      ASSERT_TRUE(FillMoeRows(DType::kBfloat16, x->recv_ids, x->row_elements,
                              recv.data())
                      .ok());
      const MoeTokenRows rows = GroupMoeRowsByToken(*x, shape.tokens);
      std::vector<float> out(shape.tokens * x->row_elements);
      ReduceMoeRows(DType::kBfloat16, rows, x->row_elements, recv.data(),
                    out.data());
      EXPECT_EQ(CountMoeWeightedWrong(r, rows, x->row_elements, out.data()), 0);
      // Weights: eighths, per selection (summed per row when a row
      // carries several of a token's selections).
      for (const MoeRowId& id : x->recv_ids) {
        EXPECT_GT(id.weight, 0);
        EXPECT_EQ(id.weight * 8, static_cast<int>(id.weight * 8));
      }
      if (x->recv_total > 0) {
        recv[0] = 0;  // one element of one row lost
        ReduceMoeRows(DType::kBfloat16, rows, x->row_elements, recv.data(),
                      out.data());
        EXPECT_EQ(CountMoeWeightedWrong(r, rows, x->row_elements, out.data()),
                  1);
      }
    }
  }
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::core
