// Results no path can carry (issue 31, item 7): a rogue worker or agent with
// a valid identity could report any figure, and a fabricated busbw would
// enter baselines and verdicts. The coordinator rejects a step whose busbw is
// above the physical limit of the sweep's path (its slowest: the network as
// soon as two nodes take part) and fails the sweep with the reason. The
// limits are deliberately generous ceilings, not expectations: by default
// kDefaultPhysicalLimitGbps on every path, twice NVLink 5's 900 GB/s per
// direction and over twice eight 800 Gb/s NICs; set them per path to the
// hardware's own (config `physical_limits:`), and per GPU model
// (`physical_limits.by_gpu_model`): a sweep whose GPU ranks are all of
// models with their own ceilings is held to theirs.
//
// Thread-safety: pure functions.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "daemon/core/path_class.h"

namespace fabricpulse::core {

inline constexpr double kDefaultPhysicalLimitGbps = 2000;
inline constexpr double kMaxPhysicalLimitGbps = 1e6;

// At most this many GPU models with ceilings of their own.
inline constexpr size_t kMaxPhysicalLimitModels = 64;

// busbw ceilings in GB/s (1e9 B/s) per path class.
struct PathLimits {
  double nvlink_gbps = kDefaultPhysicalLimitGbps;
  double pcie_shm_gbps = kDefaultPhysicalLimitGbps;
  double network_gbps = kDefaultPhysicalLimitGbps;

  double For(PathClass path) const;
  bool operator==(const PathLimits&) const = default;
};

struct PhysicalLimits : PathLimits {
  // Per GPU model as NVML names it ("NVIDIA H200"); a path a model's entry
  // leaves out has the plain ceiling.
  std::map<std::string, PathLimits> by_gpu_model;

  bool operator==(const PhysicalLimits&) const = default;
};

// The ceiling on `path` of a sweep whose GPU ranks are of `gpu_models`
// (empty: CPU ranks only, or models unknown; "" entries, CPU ranks, are
// left out): the highest of the models' ceilings, a model without an entry
// counting with the plain one, so that no model's real figure is refused;
// the plain ceiling without models. `key` names the config key it came
// from ("physical_limits.network", or
// "physical_limits.by_gpu_model[NVIDIA H200].nvlink").
struct Ceiling {
  double gbps = kDefaultPhysicalLimitGbps;
  std::string key;
};
Ceiling CeilingFor(PathClass path, const std::set<std::string>& gpu_models,
                   const PhysicalLimits& limits);

// The slowest path among the ranks: network when they span two nodes or
// more; else pcie_shm when any two GPU ranks lack an NVLink between them
// (or a rank is a CPU rank); else nvlink. One rank: pcie_shm (its busbw is
// 0 anyway).
PathClass SweepPath(const std::vector<RankLocation>& ranks);

// Why `busbw_bytes_per_second` cannot be real on `path` under `limits`
// for a sweep of `gpu_models` (CeilingFor) ("busbw 65,500 GB/s is beyond
// the physical limit of the network path (2,000 GB/s,
// physical_limits.network)"); nullopt when it can. A busbw that
// is not a finite number is beyond every limit.
std::optional<std::string> BeyondPhysicalLimit(
    double busbw_bytes_per_second, PathClass path, const PhysicalLimits& limits,
    const std::set<std::string>& gpu_models = {});

}  // namespace fabricpulse::core
