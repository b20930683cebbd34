// A plan's `campaign:` block (issue 28): the plan runs as a campaign of
// concurrent group sweeps over the fleet, on idle nodes only, ending with a
// verdict per node, instead of one sweep over every member.
//
//   plans:
//     nightly-full:
//       ops: [all_reduce]
//       campaign:
//         grouping: pairs          # node | pairs | groups:K | all
//         group_by: rack           # agent label: partners differ in it
//         select: {pool: train}    # only agents with these labels
//         judge_op: all_reduce     # the op judged (default: the first)
//         max_concurrent_groups: 16      # 1..4096
//         max_fleet_fraction: 0.5        # share of nodes in sweeps at once
//         window: 2h               # nothing starts later (0 < w <= 168h)
//         busy_retry: 5m           # a busy node is retried (<= window)
//         warn_fraction: 0.9       # below warn x reference: degraded
//         critical_fraction: 0.7   # below critical x reference: fail
//         validity: 24h            # a verdict older than this: untested
//         expected_busbw_gbps: 0   # > 0: the reference (GB/s, 1e9 B/s);
//                                  # 0: the median of the group's peers
//         thresholds:              # references per op, size, path and GPU
//           - {op: all_reduce, bytes: 1G, path: network, gbps: 45}
//                                  # model (busbw_thresholds.h); before
//                                  # expected_busbw_gbps
//
// Every key is optional; `campaign: {}` is a pairs campaign with the
// defaults above. The judged step of a group sweep is judge_op's largest
// size (out-of-place where both placements ran).
//
// Thread-safety: plain data; pure functions.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "daemon/core/agent_labels.h"
#include "daemon/core/busbw_thresholds.h"
#include "daemon/core/campaign_groups.h"
#include "daemon/core/campaign_run.h"
#include "daemon/core/node_verdict.h"

namespace fabricpulse::core {

struct CampaignConfig {
  GroupingSpec grouping{Grouping::kPairs, 0, ""};
  AgentLabels select;
  std::string judge_op;  // empty: the plan's first op
  CampaignSettings settings;
  VerdictRules rules;
  double expected_busbw_gbps = 0;
  std::vector<BusbwThreshold> thresholds;

  bool operator==(const CampaignConfig& o) const;
  // "pairs by rack, select pool=train, judge all_reduce, window 2h, 16
  // groups or 50 % of the nodes at once, busy retry 5m, warn 0.9,
  // critical 0.7, valid 24h" (expected_busbw_gbps, when set, in place of
  // the peers; select and judge only when set).
  std::string Text() const;
  // Errors: INVALID_ARGUMENT "<key>: ..." naming the key and its range
  // (the settings', the rules', expected_busbw_gbps, group_by, select).
  absl::Status Validate() const;
};

}  // namespace fabricpulse::core
