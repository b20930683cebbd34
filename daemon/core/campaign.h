// One campaign from its first group sweep to its last verdict (issue 28):
// the schedule (CampaignRun), the judgement of the first pass against a
// reference, the second passes it asks for, and the verdicts they end in
// (a NodeVerdictBook the caller keeps across campaigns). Pure: the caller
// runs each due group's sweep and reports how it ended, on real or fake
// time.
//
// The reference: the matching entry of `thresholds` (per op, size, path and
// GPU model, busbw_thresholds.h), else `expected_busbw` when the plan sets
// one (an absolute threshold, as for a machine type), else the median of
// peers' busbw with
// their spread (core/peer_reference.h), so that only a deviation beyond
// what healthy peers show is low or bad. Peers are the first pass's other
// measured groups of the same node count: each first-pass group is judged
// against every peer but itself (leave-one-out: a slow group never drags
// down, or widens, the reference it is judged by; with more than
// kLeaveOneOutMax such groups, one group moves neither, and all of them are
// the reference). Second passes are
// judged against all measured first-pass groups of their node count (a
// median and a robust spread: a slow group among them moves neither much;
// leaving out the groups judged low instead would shrink the spread and
// confirm noise: 24 false alarms in 16,000 node-campaigns against 5).
// First-pass results are held until the first pass is done (every first-pass
// node measured, or the window over): only then are all peers known. They are
// judged then, in the order they came, and the second passes the book asks for
// are scheduled at once. A suspect gets one second pass at a time, and a
// further one only when the last left it suspect (a shared bad mark followed
// by a low one of its own: that low is its first own mark, which needs its
// own confirmation), at most kMaxSecondPasses per campaign.
//
// Thread-safety: thread-compatible.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "daemon/core/busbw_thresholds.h"
#include "daemon/core/campaign_groups.h"
#include "daemon/core/campaign_run.h"
#include "daemon/core/node_verdict.h"
#include "daemon/core/peer_reference.h"

namespace fabricpulse::core {

// Second passes per suspect node and campaign (see the top of this file).
inline constexpr int kMaxSecondPasses = 2;

// Up to this many measured groups of a node count, each is judged against
// the others alone; beyond, against all of them (see Campaign).
inline constexpr size_t kLeaveOneOutMax = 64;

// How one group sweep ended, as the campaign needs it.
struct GroupMeasurement {
  bool ok = false;  // the sweep completed (false: failed, dead agent...)
  bool data_wrong = false;
  double busbw = 0;  // bytes/s of the judged step; NaN: not measured
  JudgedStep step;   // what the judged step was (for `thresholds`)
  std::string sweep_id;
  std::string error;  // when !ok
  absl::Time at = absl::InfinitePast();
};

struct CampaignOptions {
  CampaignSettings settings;
  std::string group_by;       // label key for second-pass partners
  double expected_busbw = 0;  // > 0: the reference instead of peers'
  std::vector<BusbwThreshold> thresholds;  // before expected_busbw
  // Called with each result the book recorded, in order (to keep it).
  std::function<void(const GroupResult&)> on_record;
};

struct CampaignSummary {
  CampaignProgress progress;
  std::vector<std::string> unmeasured;  // first-pass nodes never measured
  int second_passes = 0;                // scheduled so far
  bool first_pass_judged = false;
  // The reference per group node count that second passes are judged
  // against (absent: fewer than kMinPeers measured groups).
  std::map<size_t, PeerReference> references;
};

class Campaign {
 public:
  // `fleet`: every node of the first pass with its labels (partners for
  // second passes come from it). `book` outlives the campaign.
  // Errors: CampaignRun::Create's; INVALID_ARGUMENT a negative or
  // non-finite expected_busbw.
  static absl::StatusOr<Campaign> Create(
      const std::vector<std::vector<std::string>>& groups,
      const std::vector<CampaignNode>& fleet, const CampaignOptions& options,
      absl::Time start, NodeVerdictBook* book);

  // CampaignRun's, after judging the first pass when it is done.
  std::vector<CampaignGroup> Due(absl::Time now);
  void Busy(int id, const std::vector<std::string>& busy, absl::Time now);
  // Errors: NodeVerdictBook::Record's (a second-pass result it refused);
  // NOT_FOUND `id` is not a running group.
  absl::Status Measured(int id, const GroupMeasurement& measurement,
                        absl::Time now);

  bool Finished(absl::Time now);
  absl::Time NextWake(absl::Time now) const;
  CampaignSummary Summary(absl::Time now) const;

 private:
  struct Held {
    CampaignGroup group;
    GroupMeasurement measurement;
  };

  Campaign(CampaignRun run, std::vector<CampaignNode> fleet,
           const CampaignOptions& options, NodeVerdictBook* book)
      : run_(std::move(run)),
        fleet_(std::move(fleet)),
        options_(options),
        book_(book) {}
  // `peers`: the reference to judge by (null: none).
  GroupResult ResultOf(const CampaignGroup& group, const GroupMeasurement& m,
                       const PeerReference* peers) const;
  void JudgeFirstPassWhenDone(absl::Time now);
  absl::Status Record(const GroupResult& result);
  void PlanSecondPasses(absl::Time now);

  CampaignRun run_;
  std::vector<CampaignNode> fleet_;
  CampaignOptions options_;
  NodeVerdictBook* book_;
  std::map<int, CampaignGroup> running_;
  std::vector<Held> held_;  // first-pass results, until judged
  bool judged_ = false;
  std::map<size_t, PeerReference> references_;
  std::map<std::string, int> second_passed_;  // suspect: passes scheduled
  std::set<std::string> awaiting_;  // suspects whose pass has no result yet
  int second_passes_ = 0;
};

}  // namespace fabricpulse::core
