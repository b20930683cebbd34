#include "daemon/core/path_class.h"

#include <algorithm>

namespace fabricpulse::core {

absl::string_view PathClassName(PathClass path) {
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
  if (a.gpu >= 0 && b.gpu >= 0 &&
      std::find(a.nvlink_peers.begin(), a.nvlink_peers.end(), b.gpu) !=
          a.nvlink_peers.end()) {
    return PathClass::kNvlink;
  }
  return PathClass::kPcieShm;
}

}  // namespace fabricpulse::core
