#include "daemon/core/path_class.h"

#include "gtest/gtest.h"

namespace fabricpulse::core {
namespace {
namespace FP_UNITY_ID {

TEST(PathClassTest, Names) {
  EXPECT_EQ(PathClassName(PathClass::kNvlink), "nvlink");
  EXPECT_EQ(PathClassName(PathClass::kPcieShm), "pcie_shm");
  EXPECT_EQ(PathClassName(PathClass::kNetwork), "network");
}

TEST(PathClassTest, DifferentNodesAreNetworkEvenWithMatchingPeers) {
  EXPECT_EQ(ClassifyPath({"a", 0, {1}}, {"b", 1, {0}}), PathClass::kNetwork);
  EXPECT_EQ(ClassifyPath({"a", -1, {}}, {"b", -1, {}}), PathClass::kNetwork);
}

TEST(PathClassTest, NvlinkPeersOfOneNode) {
  EXPECT_EQ(ClassifyPath({"a", 0, {1, 2}}, {"a", 1, {0}}), PathClass::kNvlink);
  // Listed by one side only: still the link.
  EXPECT_EQ(ClassifyPath({"a", 0, {}}, {"a", 2, {0}}), PathClass::kNvlink);
  EXPECT_EQ(ClassifyPath({"a", 0, {2}}, {"a", 2, {}}), PathClass::kNvlink);
}

TEST(PathClassTest, OneNodeWithoutNvlinkIsPcieShm) {
  EXPECT_EQ(ClassifyPath({"a", 0, {1}}, {"a", 3, {2}}), PathClass::kPcieShm);
  EXPECT_EQ(ClassifyPath({"a", 0, {}}, {"a", 1, {}}), PathClass::kPcieShm);
  // CPU ranks of one machine.
  EXPECT_EQ(ClassifyPath({"a", -1, {}}, {"a", -1, {}}), PathClass::kPcieShm);
  // A CPU rank and a GPU rank: a peer list never names -1.
  EXPECT_EQ(ClassifyPath({"a", 0, {-1}}, {"a", -1, {0}}), PathClass::kPcieShm);
  // Two ranks of one GPU.
  EXPECT_EQ(ClassifyPath({"a", 1, {1}}, {"a", 1, {1}}), PathClass::kPcieShm);
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::core
