#include "daemon/core/physical_limits.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace fabricpulse::core {

double PhysicalLimits::For(PathClass path) const {
  switch (path) {
    case PathClass::kNvlink:
      return nvlink_gbps;
    case PathClass::kPcieShm:
      return pcie_shm_gbps;
    case PathClass::kNetwork:
      return network_gbps;
  }
  return network_gbps;
}

PathClass SweepPath(const std::vector<RankLocation>& ranks) {
  for (size_t i = 1; i < ranks.size(); ++i) {
    if (ranks[i].node != ranks[0].node) return PathClass::kNetwork;
  }
  if (ranks.size() < 2) return PathClass::kPcieShm;
  for (size_t i = 0; i < ranks.size(); ++i) {
    for (size_t j = i + 1; j < ranks.size(); ++j) {
      if (ClassifyPath(ranks[i], ranks[j]) != PathClass::kNvlink) {
        return PathClass::kPcieShm;
      }
    }
  }
  return PathClass::kNvlink;
}

std::optional<std::string> BeyondPhysicalLimit(double busbw_bytes_per_second,
                                               PathClass path,
                                               const PhysicalLimits& limits) {
  const double limit = limits.For(path);
  const double gbps = busbw_bytes_per_second / 1e9;
  if (std::isfinite(gbps) && gbps <= limit) return std::nullopt;
  return absl::StrFormat(
      "busbw %s GB/s is beyond the physical limit of the %s path (%.0f GB/s, "
      "physical_limits.%s)",
      std::isfinite(gbps) ? absl::StrFormat("%.1f", gbps) : "not a number",
      PathClassName(path), limit, PathClassName(path));
}

}  // namespace fabricpulse::core
