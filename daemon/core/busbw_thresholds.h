// Absolute busbw references for a campaign (issue 28, item 4), per op, size,
// path and GPU model, as Cluster Health Scanner's thresholds per machine
// type and GCM's warn/critical figures: a group whose judged step matches
// an entry is judged against that entry's GB/s (warn_fraction and
// critical_fraction apply to it) instead of its peers' median.
//
//   campaign:
//     thresholds:
//       - {op: all_reduce, bytes: 1G, path: network, gbps: 45}
//       - {op: all_reduce, bytes: 1G, path: nvlink, gpu_model: "NVIDIA H200",
//       gbps: 360}
//
// Every key but gbps is optional (absent: any). The entry that names the
// most keys among those that match wins; a tie goes to the first in the
// file. No entry matches: the plan's expected_busbw_gbps when set, else the
// peers.
//
// Thread-safety: plain data; pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace fabricpulse::core {

inline constexpr size_t kMaxBusbwThresholds = 256;

struct BusbwThreshold {
  std::string op;         // "": any
  uint64_t bytes = 0;     // 0: any size
  std::string path;       // nvlink, pcie_shm, network; "": any
  std::string gpu_model;  // as NVML names it; "": any
  double gbps = 0;        // > 0, GB/s (1e9 B/s)

  bool operator==(const BusbwThreshold&) const = default;
};

// What a group's judged step was, for the match.
struct JudgedStep {
  std::string op;
  uint64_t bytes = 0;
  std::string path;
  std::string gpu_model;
};

// The matching entry's index, or -1.
int MatchThreshold(const std::vector<BusbwThreshold>& thresholds,
                   const JudgedStep& step);

// One entry. Errors: INVALID_ARGUMENT "<key>: ..." naming the key and its
// range (an unknown op or path, gbps not in (0, 1e6]).
absl::Status ValidateThreshold(const BusbwThreshold& threshold);
// Every entry. Errors: INVALID_ARGUMENT "thresholds[i].<key>: ..." (as
// ValidateThreshold), or "thresholds: ..." more than kMaxBusbwThresholds.
absl::Status ValidateThresholds(const std::vector<BusbwThreshold>& thresholds);

// "all_reduce 1 GiB network: 45 GB/s" (the keys it names).
std::string DescribeThreshold(const BusbwThreshold& threshold);

}  // namespace fabricpulse::core
