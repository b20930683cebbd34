// What a GPU model's machines are expected to have up (issue 29, item 4):
// the config's `link_expectations`, for fleets too small to compare a node
// with its peers (fewer than 3 nodes of a model) or where the operator
// knows the figure. A node of a listed model is judged against it instead
// of its peers (coordinator/link_health.h).
//
//   link_expectations:
//     "NVIDIA H200": {nvlinks: 18, nics_gbit: 3200}
//
// nvlinks: active NVLinks per GPU (0 to 64); nics_gbit: the node's NIC
// bandwidth up, Gbit/s (more than 0, up to 1,000,000). Either may be left
// out (then that figure is judged against peers). At most 64 models.
//
// Thread-safety: plain data.
#pragma once

#include <map>
#include <optional>
#include <string>

namespace fabricpulse::core {

inline constexpr size_t kMaxLinkExpectationModels = 64;
inline constexpr int kMaxExpectedNvlinks = 64;

struct LinkExpectation {
  std::optional<int> nvlinks;
  std::optional<double> nics_gbit;

  bool operator==(const LinkExpectation&) const = default;
};

// By GPU model as NVML names it.
using LinkExpectations = std::map<std::string, LinkExpectation>;

}  // namespace fabricpulse::core
