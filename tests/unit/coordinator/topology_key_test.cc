#include "daemon/coordinator/topology_key.h"

#include "daemon/coordinator/baseline_change.h"
#include "gtest/gtest.h"

namespace fabricpulse::coordinator {
namespace {

// An agent with one worker per entry of `gpus` (-1: a CPU rank); every GPU
// worker gets `model` and, when `nvlink`, every other GPU as a peer.
v1::AgentInfo Agent(const std::string& node, std::vector<int> gpus,
                    const std::string& model = "", bool nvlink = false) {
  v1::AgentInfo a;
  a.set_node_name(node);
  for (size_t i = 0; i < gpus.size(); ++i) {
    v1::WorkerInfo* w = a.add_workers();
    w->set_local_index(static_cast<int>(i));
    w->set_gpu(gpus[i]);
    if (gpus[i] < 0) continue;
    w->set_gpu_model(model);
    for (int other : gpus) {
      if (nvlink && other != gpus[i]) w->add_nvlink_peers(other);
    }
  }
  return a;
}

TEST(TopologyKeyTest, CpuRanksKeepTheBareShape) {
  EXPECT_EQ(TopologyKey("gloo", {Agent("a", {-1, -1}), Agent("b", {-1})}),
            "gloo:ax2,bx1");
  // GPU ranks whose agent reports no facts (no NVML): the shape too.
  EXPECT_EQ(TopologyKey("nccl", {Agent("a", {0, 1})}), "nccl:ax2");
}

TEST(TopologyKeyTest, ModelsAndNvlinkClass) {
  EXPECT_EQ(TopologyKey("nccl", {Agent("a", {0, 1}, "NVIDIA H200", true),
                                 Agent("b", {0, 1}, "NVIDIA H200", true)}),
            "nccl:ax2,bx2;gpu=NVIDIA H200;nvlink=full");
  EXPECT_EQ(TopologyKey("nccl", {Agent("a", {0, 1}, "NVIDIA H200", true),
                                 Agent("b", {0, 1}, "NVIDIA H100", false)}),
            "nccl:ax2,bx2;gpu=NVIDIA H100+NVIDIA H200;nvlink=partial");
  EXPECT_EQ(TopologyKey("nccl", {Agent("a", {0, 1}, "NVIDIA L4")}),
            "nccl:ax2;gpu=NVIDIA L4;nvlink=none");
  // One GPU per node: no pair within a node, so no NVLink in use.
  EXPECT_EQ(TopologyKey("nccl", {Agent("a", {0}, "NVIDIA H200", true),
                                 Agent("b", {3}, "NVIDIA H200", true)}),
            "nccl:ax1,bx1;gpu=NVIDIA H200;nvlink=none");
}

TEST(TopologyKeyTest, AnUnknownModelIsNamedAndTheKeyIsStable) {
  v1::AgentInfo a = Agent("a", {0, 1}, "NVIDIA H200");
  a.mutable_workers(1)->clear_gpu_model();
  const std::string key = TopologyKey("nccl", {a});
  EXPECT_EQ(key, "nccl:ax2;gpu=NVIDIA H200+unknown;nvlink=none");
  EXPECT_EQ(TopologyKey("nccl", {a}), key);
}

TEST(TopologyKeyTest, ShapeAndHardwareParts) {
  EXPECT_EQ(TopologyShape("nccl:ax2;gpu=X;nvlink=full"), "nccl:ax2");
  EXPECT_EQ(TopologyHardware("nccl:ax2;gpu=X;nvlink=full"),
            "gpu=X;nvlink=full");
  EXPECT_EQ(TopologyShape("gloo:ax2"), "gloo:ax2");
  EXPECT_EQ(TopologyHardware("gloo:ax2"), "");
}

TEST(BaselineChangeTest, NamesWhatChanged) {
  EXPECT_FALSE(FindBaselineChange({"gloo:ax2", "v1"}, {"gloo:ax2", "v1"}));
  auto version = FindBaselineChange({"nccl:ax2", "nccl 2.28.9"},
                                    {"nccl:ax2", "nccl 2.29.1"});
  ASSERT_TRUE(version);
  EXPECT_TRUE(version->backend_version);
  EXPECT_FALSE(version->topology);
  EXPECT_EQ(version->note,
            "nccl 2.28.9 -> nccl 2.29.1: new baseline from this sweep");
  auto both = FindBaselineChange({"nccl:ax2", "a"},
                                 {"nccl:ax2;gpu=NVIDIA H200;nvlink=full", "b"});
  ASSERT_TRUE(both);
  EXPECT_TRUE(both->backend_version);
  EXPECT_TRUE(both->topology);
  EXPECT_EQ(both->note,
            "a -> b; topology no GPU facts -> gpu=NVIDIA H200;nvlink=full: new "
            "baseline from this sweep");
}

TEST(BaselineChangeTest, AnUnrecordedVersionIsNamed) {
  auto change = FindBaselineChange({"x", ""}, {"x", "gloo 0.5"});
  ASSERT_TRUE(change);
  EXPECT_EQ(change->note,
            "unknown version -> gloo 0.5: new baseline from this sweep");
}

TEST(BaselineChangeTest, TheNoteIsBounded) {
  auto change = FindBaselineChange({"x", std::string(2000, 'a')},
                                   {"x", std::string(2000, 'b')});
  ASSERT_TRUE(change);
  EXPECT_EQ(change->note.size(), kMaxBaselineChangeLength);
}

}  // namespace
}  // namespace fabricpulse::coordinator
