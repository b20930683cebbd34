// The coordinator's config file: plans (named sweep specs), cron schedules
// that start them, and baseline settings.
//
// Format (YAML). This is a contract: operators write files against it.
//
//   timezone: UTC                # default zone for schedules (IANA name)
//   baseline:
//     window: 10                 # the last N succeeded sweeps (1..1000)
//     min_sweeps: 5              # no baseline from fewer (1..window;
//                                # omitted: 5, or the window if smaller)
//     threshold: 0.9             # regression: busbw < baseline * threshold
//                                # (0 < threshold <= 1); see regression.h
//   plans:
//     nightly-full:              # plan name: [a-z0-9][a-z0-9_-]{0,62}
//       ops: [all_reduce, all_gather, reduce_scatter, alltoall, broadcast,
//             sendrecv]
//       min_bytes: 8             # integers or strings with K/M/G
//       max_bytes: 1G            # or auto / auto:FRACTION: per op, the
//                                # largest power of two whose buffers fit
//                                # FRACTION (0 < F <= 1; auto: 0.25) of the
//                                # least free memory of any rank
//                                # (auto_max_bytes.h)
//       factor: 2                # or step_bytes: 64M (not both)
//       dtype: float
//       redop: sum
//       root: 0
//       iters: auto              # a count (1..1000000) or auto: adaptive
//       tolerance: 0.01          # with auto only (adaptive_iters.h): 95 %
//                                # CI half-width / mean that ends a size
//                                # (0 < t <= 0.5)
//       min_iters: 5             # the first batch (2..1000000)
//       max_iters: 100           # (min_iters..1000000)
//       step_time_cap: 2s        # per size, timed batches (0 < cap <= 1h)
//       warmup: 5
//       check: true
//       placement: both          # out_of_place | in_place | both
//       graph: false
//       timeout: 60s             # absl duration ("90s", "1m30s") or a
//                                # number of seconds
//       fresh_comm: false        # new communicator for this sweep
//       nodes: []                # empty = all live agents
//       campaign: {}             # run as a campaign of group sweeps
//                                # with a verdict per node
//                                # (campaign_config.h); absent: one sweep
//       isolate_on: [regression, failure]  # after a sweep with a
//                                # regressed step or a fault, on >= 2
//                                # nodes, the coordinator isolates the
//                                # node or link behind it (auto_isolator.h);
//                                # empty (the default) = never
//     hourly-allreduce:
//       ops: [all_reduce]
//       min_bytes: 1M
//       max_bytes: 256M
//       factor: 4                # iters omitted: 20, fixed
//   history:                     # retention of the sweep history
//     max_age: 90d               # sweeps started longer ago are removed
//                                # (1h .. 36500d; Nd, or an absl duration)
//     max_bytes: 1G              # the oldest sweeps go first beyond this
//                                # (1M .. 1T of the database file)
//   agents:
//     max: 4096                  # registered agents, lost ones included
//                                # (1 .. 16384)
//     forget_lost_after: 24h     # a lost agent is removed this long after
//                                # its last heartbeat (1m .. 365d)
//   physical_limits:             # busbw (GB/s) no path can carry: a step
//     nvlink: 2000               # reported above it fails its sweep
//     pcie_shm: 2000             # (physical_limits.h; more than 0 ..
//     network: 2000              # 1000000 each)
//     by_gpu_model:              # optional, at most 64 models: a sweep of
//       "NVIDIA H200": {nvlink: 500}  # these GPUs is held to their own
//   link_expectations:           # optional: judge these models' machines
//     "NVIDIA H200": {nvlinks: 18, nics_gbit: 3200}  # against these, not
//                                # their peers (link_expectations.h)
//   schedules:
//     - name: nightly            # unique; same naming rule as plans
//       plan: nightly-full       # must name a plan
//       cron: "0 2 * * *"        # see cron.h (5 fields or @macro)
//       timezone: UTC            # optional, defaults to top-level timezone
//       allow_busy_gpus: false   # optional
//
// Rules:
//  - Every key is optional except a schedule's name, plan and cron. Omitted
//    top-level keys: timezone UTC, window 10, min_sweeps 5, threshold 0.9,
//    history 90d / 1G, agents 4096 / 24h (limits.h), no plans, no
//    schedules (an empty file is valid). Omitted plan fields take
//    core::SweepSpec's defaults. A plan with all defaults is written `{}`.
//  - Unknown keys, duplicate keys and empty values (`key:` with nothing) are
//    errors, so that a typo never silently falls back to a default.
//  - A plan's spec is checked with core::Validate(spec, /*nranks=*/1),
//    except root, which only has to be >= 0 here (the runner checks it
//    against the sweep's rank count), and its size schedule must have at
//    most kMaxSteps sizes.
//  - tolerance, min_iters, max_iters and step_time_cap need iters: auto;
//    iters: auto with graph: true is refused (a CUDA graph replays a fixed
//    count).
//  - Plans may be listed before or after the schedules that name them.
//
// Errors are INVALID_ARGUMENT with ONE line naming the 1-based file line and
// the field path, e.g.
//   config line 14: plans.nightly-full.iters: 0 is out of range; allowed: 1
//   to 1000000
//   config line 22: schedules[1].plan: unknown plan 'nightly-ful'; defined:
//   hourly-allreduce, nightly-full
// (each on one line; control characters in keys and values are escaped).
// YAML syntax errors read "config line N: invalid YAML: <parser message>"
// (also "invalid YAML: unexpected ',' at column C", where yaml-cpp 0.7
// would loop for ever), a second document "config line N: expected one
// YAML document, got more than one".
//
// Thread-safety: all functions are pure (LoadCoordinatorConfigFile reads a
// file) and safe to call concurrently.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "daemon/core/campaign_config.h"
#include "daemon/core/cron.h"
#include "daemon/core/limits.h"
#include "daemon/core/link_expectations.h"
#include "daemon/core/physical_limits.h"
#include "daemon/core/sweep_spec.h"

namespace fabricpulse::core {

inline constexpr char kDefaultConfigTimeZone[] = "UTC";
inline constexpr int kDefaultBaselineWindow = 10;
inline constexpr int kMaxBaselineWindow = 1000;
inline constexpr int kDefaultBaselineMinSweeps = 5;
inline constexpr double kDefaultRegressionThreshold = 0.9;

// When the coordinator isolates after a plan's sweep (the plan key
// isolate_on): a regressed step, a failed sweep, both or (default) never.
struct IsolateOn {
  bool regression = false;
  bool failure = false;
  bool any() const { return regression || failure; }
  bool operator==(const IsolateOn&) const = default;
};

// "regression, failure", "regression", "failure" or "off".
std::string IsolateOnText(const IsolateOn& on);

struct PlanConfig {
  std::string name;
  SweepSpec spec;
  std::vector<std::string> nodes;  // empty = all live agents
  IsolateOn isolate_on;
  // Set: the plan runs as a campaign of group sweeps (campaign_config.h).
  std::optional<CampaignConfig> campaign;
};

struct ScheduleConfig {
  std::string name;
  std::string plan;   // a key of CoordinatorConfig::plans
  CronSchedule cron;  // carries the schedule's zone
  bool allow_busy_gpus = false;
};

struct CoordinatorConfig {
  std::string timezone = kDefaultConfigTimeZone;
  int baseline_window = kDefaultBaselineWindow;
  // A baseline needs this many succeeded sweeps (1..baseline_window).
  int baseline_min_sweeps = kDefaultBaselineMinSweeps;
  double regression_threshold = kDefaultRegressionThreshold;
  // History retention (store/history_retention.h).
  absl::Duration history_max_age = kDefaultHistoryMaxAge;
  uint64_t history_max_bytes = kDefaultHistoryMaxBytes;
  // Membership bounds (membership.h).
  int max_agents = kDefaultMaxAgents;
  absl::Duration forget_lost_agents_after = kDefaultForgetLostAfter;
  // busbw no path can carry: a result above is rejected (physical_limits.h).
  PhysicalLimits physical_limits;
  // Links each GPU model's machines are expected to have up
  // (link_expectations.h).
  LinkExpectations link_expectations;
  std::map<std::string, PlanConfig> plans;  // by name
  std::vector<ScheduleConfig> schedules;    // in file order
};

// Field-by-field equality (specs compared on every SweepSpec field,
// schedules with CronSchedule's operator==).
bool operator==(const PlanConfig& a, const PlanConfig& b);
bool operator==(const ScheduleConfig& a, const ScheduleConfig& b);
bool operator==(const CoordinatorConfig& a, const CoordinatorConfig& b);

// True for names matching [a-z0-9][a-z0-9_-]{0,62} (plans and schedules).
bool IsValidConfigName(absl::string_view name);

// Parses and validates a config file's text (format above). Errors:
// INVALID_ARGUMENT, one line, as described above.
absl::StatusOr<CoordinatorConfig> ParseCoordinatorConfig(
    absl::string_view yaml_text);

// Reads `path` (core::ReadBoundedFile: a regular file of at most
// kMaxConfigFileBytes, 1 MiB) and parses it. Errors: those of
// ParseCoordinatorConfig; NOT_FOUND when the file does not exist;
// PERMISSION_DENIED when it cannot be opened for reading;
// FAILED_PRECONDITION for anything but a regular file (directory, FIFO,
// device); RESOURCE_EXHAUSTED over 1 MiB; other errno-derived codes
// (absl::ErrnoToStatusCode) for other read failures. Read errors start
// "config: cannot read '<path>': ".
absl::StatusOr<CoordinatorConfig> LoadCoordinatorConfigFile(
    const std::string& path);

// The shipped default (also deploy/config/coordinator.yaml): plan
// "nightly-full" (all six common ops, 8 B to 1 GiB, factor 2, 60 s timeout),
// a campaign of pairs across racks (group_by: rack) with the campaign
// defaults, scheduled "nightly" at 02:00 UTC, and plan "hourly-allreduce"
// (all_reduce, 1 MiB to 256 MiB, factor 4) scheduled "hourly" at minute 30 of
// every hour (off the nightly's start minute), UTC.
CoordinatorConfig DefaultCoordinatorConfig();

}  // namespace fabricpulse::core
