#include "daemon/core/path_class.h"

#include <algorithm>

namespace fabricpulse::core {
namespace {

bool Lists(const std::vector<int>& peers, int gpu) {
  return std::find(peers.begin(), peers.end(), gpu) != peers.end();
}

}  // namespace

std::string_view PathClassName(PathClass path) {
  switch (path) {
    case PathClass::kNvlink:
      return "nvlink";
    case PathClass::kPcieShm:
      return "pcie_shm";
    case PathClass::kNetwork:
      return "network";
  }
  return "network";
}

PathClass ClassifyPath(const RankLocation& a, const RankLocation& b) {
  if (a.node != b.node) return PathClass::kNetwork;
  if (a.gpu >= 0 && b.gpu >= 0 && a.gpu != b.gpu &&
      (Lists(a.nvlink_peers, b.gpu) || Lists(b.nvlink_peers, a.gpu))) {
    return PathClass::kNvlink;
  }
  return PathClass::kPcieShm;
}

}  // namespace fabricpulse::core
