#include "daemon/core/physical_limits.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace fabricpulse::core {

double PathLimits::For(PathClass path) const {
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

Ceiling CeilingFor(PathClass path, const std::set<std::string>& gpu_models,
                   const PhysicalLimits& limits) {
  const std::string name(PathClassName(path));
  const std::string plain = absl::StrCat("physical_limits.", name);
  Ceiling best;
  bool any = false;
  for (const std::string& model : gpu_models) {
    if (model.empty()) continue;
    auto it = limits.by_gpu_model.find(model);
    Ceiling c = it == limits.by_gpu_model.end()
                    ? Ceiling{limits.For(path), plain}
                    : Ceiling{it->second.For(path),
                              absl::StrCat("physical_limits.by_gpu_model[",
                                           model, "].", name)};
    if (!any || c.gbps > best.gbps) best = std::move(c);
    any = true;
  }
  if (!any) best = {limits.For(path), plain};
  return best;
}

std::optional<std::string> BeyondPhysicalLimit(
    double busbw_bytes_per_second, PathClass path, const PhysicalLimits& limits,
    const std::set<std::string>& gpu_models) {
  const Ceiling ceiling = CeilingFor(path, gpu_models, limits);
  const double gbps = busbw_bytes_per_second / 1e9;
  if (std::isfinite(gbps) && gbps <= ceiling.gbps) return std::nullopt;
  return absl::StrFormat(
      "busbw %s GB/s is beyond the physical limit of the %s path (%.0f GB/s, "
      "%s)",
      std::isfinite(gbps) ? absl::StrFormat("%.1f", gbps) : "not a number",
      PathClassName(path), ceiling.gbps, ceiling.key);
}

}  // namespace fabricpulse::core
