// One campaign's schedule (issue 28): which group sweeps start when, on
// fake or real time alike. A campaign covers a fleet in groups
// (core/campaign_groups.h); group sweeps whose node sets are disjoint run
// at the same time, up to a bound; a group with a busy node is taken apart:
// the busy node is retried after `busy_retry`, its free members are
// regrouped with other free nodes at once; nothing starts after the window
// ends, and a node never measured by then is untested. Second passes (the
// two-pass confirmation, NodeVerdictBook::PlanSecondPasses) are added by
// the caller and run under the same bounds. Pure: no clock, no I/O, no
// threads; the caller runs the sweeps and reports how each ended.
//
// Thread-safety: thread-compatible.
#pragma once

#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace fabricpulse::core {

inline constexpr int kMaxConcurrentGroups = 4096;
inline constexpr absl::Duration kMaxCampaignWindow = absl::Hours(24 * 7);

struct CampaignSettings {
  // At most this many group sweeps at once (1..kMaxConcurrentGroups).
  int max_concurrent_groups = 16;
  // And at most this share of the fleet's nodes in running group sweeps
  // (0 < f <= 1); one group may always run, whatever its size.
  double max_fleet_fraction = 0.5;
  // Nothing starts later than start + window (0 < window <= 7 days).
  absl::Duration window = absl::Hours(2);
  // A busy node is tried again this long after (0 < busy_retry <= window).
  absl::Duration busy_retry = absl::Minutes(5);

  // Errors: INVALID_ARGUMENT naming the field and its allowed range.
  absl::Status Validate() const;
};

struct CampaignGroup {
  int id = 0;                      // unique within the campaign
  std::vector<std::string> nodes;  // sorted
  bool second_pass = false;
};

struct CampaignProgress {
  size_t fleet = 0;     // distinct nodes in the first-pass groups
  size_t measured = 0;  // of those, measured at least once
  size_t running_groups = 0;
  size_t pending_nodes = 0;  // waiting for a start (busy or regrouping)
  bool window_over = false;
};

class CampaignRun {
 public:
  // `groups`: the first pass (PlanGroups), node sets disjoint. Errors:
  // the settings' errors; INVALID_ARGUMENT when a group is empty or a node
  // is in two groups.
  static absl::StatusOr<CampaignRun> Create(
      const std::vector<std::vector<std::string>>& groups,
      const CampaignSettings& settings, absl::Time start);

  // The groups to start now, marked running: in order of id, each disjoint
  // from the running ones and from each other, within both bounds. Nodes
  // set free by a busy member (and busy nodes whose retry time came) are
  // regrouped first, in name order, into groups of their old group's size;
  // a lone node left over takes as partner a node this campaign measured
  // that is not running (by name), or waits for one. Empty once the window
  // is over.
  std::vector<CampaignGroup> Due(absl::Time now);

  // The group's sweep ran to a result (good, bad or failed): its nodes are
  // measured and free.
  void Measured(int id);
  // The group could not start because `busy` of its nodes are busy (GPUs in
  // use, or in another sweep): those are retried at now + busy_retry, the
  // others are free to regroup now. An empty `busy` retries every member.
  // A member this campaign measured already (a partner lent to a lone
  // node) is only freed, never retried.
  void Busy(int id, const std::vector<std::string>& busy, absl::Time now);

  // Second passes: each group alone of its own kind (sorted nodes, any
  // nodes, not regrouped if one is busy: it is retried as it is). A group
  // whose nodes overlap a pending second pass is dropped.
  void AddSecondPasses(const std::vector<std::vector<std::string>>& groups);

  // No first-pass node waits or runs (each measured, or the window over).
  bool FirstPassDone(absl::Time now) const;
  // Nothing runs, and nothing is pending or the window is over.
  bool Finished(absl::Time now) const;
  // When Due (or Finished) may next change if no group ends before: the
  // earliest retry time, the window's end while anything waits, else
  // InfiniteFuture.
  absl::Time NextWake(absl::Time now) const;

  // Nodes of the first pass never measured (at the end: untested), sorted.
  std::vector<std::string> Unmeasured() const;
  CampaignProgress Progress(absl::Time now) const;

 private:
  struct Pending {
    std::vector<std::string> nodes;
    bool second_pass = false;
    absl::Time not_before = absl::InfinitePast();
  };

  CampaignRun(const CampaignSettings& settings, absl::Time start)
      : settings_(settings), start_(start) {}
  bool WindowOver(absl::Time now) const;
  void Regroup(absl::Time now);
  bool Fits(const std::vector<std::string>& nodes) const;
  bool Idle(const std::string& node) const;
  void AddPending(std::vector<std::string> nodes, bool second_pass,
                  absl::Time not_before);

  CampaignSettings settings_;
  absl::Time start_;
  size_t group_size_ = 1;  // the first pass's largest group
  size_t fleet_ = 0;
  int next_id_ = 0;
  std::map<int, Pending> pending_;
  std::map<int, CampaignGroup> running_;
  // Free nodes to regroup, with the time each may start.
  std::map<std::string, absl::Time> loose_;
  std::set<std::string> first_pass_nodes_;
  std::set<std::string> measured_;
  std::set<std::string> running_nodes_;
};

}  // namespace fabricpulse::core
