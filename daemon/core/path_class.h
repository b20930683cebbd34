// What carries the traffic between two ranks: NVLink, PCIe or shared memory
// within a node, or the network between nodes.
#pragma once

#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace fabricpulse::core {

enum class PathClass { kNvlink, kPcieShm, kNetwork };

// "nvlink", "pcie_shm" or "network".
absl::string_view PathClassName(PathClass path);

// Where a rank runs.
struct RankLocation {
  std::string node;
  int gpu = -1;  // -1 for CPU ranks
  // Local GPU indexes this rank's GPU reaches over an active NVLink.
  std::vector<int> nvlink_peers;
};

// Two nodes: network. One node: NVLink when both are GPU ranks and b's GPU
// is among a's NVLink peers, otherwise PCIe / shared memory (CPU ranks of
// one machine too).
PathClass ClassifyPath(const RankLocation& a, const RankLocation& b);

}  // namespace fabricpulse::core
