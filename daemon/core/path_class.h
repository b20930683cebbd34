// The path class of a pair of ranks: how their bytes travel. The pairwise
// matrix labels each pair with it and compares pairs within a class; the
// agents report what it is computed from (WorkerInfo.gpu, nvlink_peers).
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace fabricpulse::core {

enum class PathClass {
  kNvlink,   // two GPUs of one node joined by an active NVLink
  kPcieShm,  // one node otherwise: PCIe, shared memory, or CPU ranks
  kNetwork,  // two nodes
};

// "nvlink", "pcie_shm", "network" (PairResult.path's spelling).
std::string_view PathClassName(PathClass path);

// Where a rank runs, as its agent reports it.
struct RankLocation {
  std::string node;
  // NVML index of the rank's GPU; -1 for a CPU rank.
  int gpu = -1;
  // Local GPU indexes this rank's GPU reaches over an active NVLink
  // (WorkerInfo.nvlink_peers); empty for CPU ranks or when unknown.
  std::vector<int> nvlink_peers;
};

// kNetwork when the nodes differ; kNvlink when both are GPU ranks of one
// node and b's GPU is among a's NVLink peers (or a's among b's: a peer list
// that NVML reported for one side only still names the link); else
// kPcieShm (one node: CPU ranks, GPUs without NVLink between them, or two
// ranks of one GPU).
PathClass ClassifyPath(const RankLocation& a, const RankLocation& b);

}  // namespace fabricpulse::core
