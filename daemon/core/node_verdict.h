// Node verdicts of a campaign (issue 28): from the results of group sweeps
// over time, a verdict per node with its evidence, confirmed in two passes
// the way Cluster Health Scanner does, so that one bad measurement never
// names a node and a node is never blamed for its partner.
//
// One result of a group is:
//  - bad:  the sweep failed, its data was wrong, or busbw < critical x the
//          reference (a busbw that is not a number counts as bad);
//  - low:  busbw < warn x the reference;
//  - good: otherwise (and always when there is no reference, 0).
// With a reference spread (peers' robust sd, core/peer_reference.h), low
// and bad also need busbw more than kPeerSpreadMultiple spreads below the
// reference: a drop within healthy peers' own spread names nobody. The
// spread judged is the wider of the peers' and the plan's measured noise
// (NoiseSpread: the robust sd of busbw / reference over the book's last
// kNoisePoolSize results judged against peers, times this reference): a
// handful of peers can agree by chance (4 groups within 0.4 % of each other
// on a fabric whose results vary by 7 %), and a spread read from them
// alone named healthy nodes on a busy machine. An absolute reference
// (expected_busbw, no spread) is judged on its thresholds alone.
// A good result sets every member to `pass` (a suspect's one-off, or a
// repaired node, is cleared by one good measurement). A low or bad result is
// laid on the members that are not *cleared* (verdict pass, tested within
// the validity window at the result's time); when every member is cleared,
// on all of them. Each member it is laid on:
//  - with no earlier mark (pass, untested): becomes `suspect`, never fail;
//  - already marked (suspect, degraded, fail), when it is the only member the
//    result is laid on (a single-node group's repeat, or a group whose other
//    members are all cleared: the second pass): confirmed as the milder of
//    its last two marks: bad + bad is `fail`, any low among them `degraded`
//    -- except that a bad first mark shared with other uncleared members
//    followed by a low one leaves the node `suspect` with the low mark (the
//    excess may have been its partner's);
//  - already marked, with other uncleared members in the group: unchanged
//    (the result cannot tell which of them is at fault).
// Cleared members of a low or bad group are not blamed: verdict unchanged.
// A mark older than the validity window at a new result's time no longer
// counts (the node starts again as untested). A node with no result within
// the validity window at `now` is `untested`.
//
// One book judges one kind of measurement (one plan: its op, size and
// grouping); a coordinator keeps one per campaign plan. To restore a book
// after a restart, Record the stored results again in their order.
//
// Thread-safety: thread-compatible (const methods may run concurrently;
// Record and Forget need exclusive access).
#pragma once

#include <cstddef>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "daemon/core/campaign_groups.h"
#include "daemon/core/peer_reference.h"

namespace fabricpulse::core {

// Evidence kept per node, newest last: enough for the two marks a verdict
// rests on plus the results since.
inline constexpr size_t kMaxNodeEvidence = 4;
inline constexpr double kDefaultWarnFraction = 0.9;
inline constexpr double kDefaultCriticalFraction = 0.7;
inline constexpr absl::Duration kDefaultVerdictValidity = absl::Hours(24);
// The plan's noise: at most this many results' busbw / reference kept
// (the book's other bounded state), and none judged from fewer than one
// campaign of the fewest groups a peer reference is made of (5 pairs).
inline constexpr size_t kNoisePoolSize = 200;
inline constexpr size_t kMinNoisePool = kMinPeers + 1;

enum class NodeVerdict { kPass, kDegraded, kFail, kUntested, kSuspect };

// "pass", "degraded", "fail", "untested", "suspect".
absl::string_view VerdictName(NodeVerdict verdict);
// The verdict `name` spells (exactly as VerdictName writes it), or nullopt.
std::optional<NodeVerdict> ParseVerdict(absl::string_view name);

// Shares of the reference busbw: below warn is low, below critical is bad.
struct VerdictThresholds {
  double warn_fraction = kDefaultWarnFraction;
  double critical_fraction = kDefaultCriticalFraction;

  // Errors: INVALID_ARGUMENT naming `critical_fraction` or `warn_fraction`
  // and the range 0 < critical_fraction <= warn_fraction <= 1.
  absl::Status Validate() const;
};

struct VerdictRules {
  VerdictThresholds thresholds;
  absl::Duration validity = kDefaultVerdictValidity;

  // The thresholds' errors, or INVALID_ARGUMENT naming `validity` when it is
  // not a positive, finite duration.
  absl::Status Validate() const;
};

// One group sweep's outcome.
struct GroupResult {
  std::vector<std::string> nodes;
  bool ok = false;              // the sweep completed
  bool data_wrong = false;      // the check found wrong data
  double busbw = 0;             // bytes per second
  double reference_busbw = 0;   // 0: no reference, busbw is not judged
  double reference_spread = 0;  // bytes/s; 0: thresholds alone judge
  std::string sweep_id;
  absl::Time at = absl::InfinitePast();
  std::string error;  // when !ok
};

enum class Finding { kGood, kLow, kBad };

// How one result reads against the thresholds (see the top of this file).
Finding Classify(const GroupResult& result,
                 const VerdictThresholds& thresholds);

// One result as it bears on one node.
struct NodeEvidence {
  std::string sweep_id;
  absl::Time at;
  std::vector<std::string> group;
  Finding finding = Finding::kGood;
  double busbw = 0;
  double reference_busbw = 0;
  double threshold_busbw = 0;  // the busbw it fell below (the lower of
                               // warn or critical x reference and 3 judged
                               // spreads below it), else the warn one; 0
                               // without reference
  bool blamed = false;         // the result was laid on this node
  std::string detail;  // "ok", "below warn", "below critical", "wrong data",
                       // "failed: <error>"; ", not blamed" when cleared
};

struct NodeStatus {
  std::string node;
  NodeVerdict verdict = NodeVerdict::kUntested;
  absl::Time since = absl::InfinitePast();        // verdict held since
  absl::Time last_tested = absl::InfinitePast();  // InfinitePast: never
  std::vector<NodeEvidence> evidence;  // oldest first, <= kMaxNodeEvidence
};

// A second-pass measurement the campaign should schedule.
struct SecondPass {
  std::string suspect;
  std::vector<std::string> nodes;  // sorted: the suspect alone, or with a
                                   // partner that passed
};

struct SecondPassPlan {
  std::vector<SecondPass> passes;    // disjoint node sets, by suspect name
  std::vector<std::string> waiting;  // suspects with no free partner now
};

class NodeVerdictBook {
 public:
  // Errors: VerdictRules::Validate's.
  static absl::StatusOr<NodeVerdictBook> Create(const VerdictRules& rules);

  // Applies one group's result. Errors: INVALID_ARGUMENT when `nodes` is
  // empty or names a node twice or an empty name, or `at` is infinite
  // (nothing is applied then).
  absl::Status Record(const GroupResult& result);

  // The node's status at `now`; untested with no evidence for a node never
  // recorded. A stored verdict whose last test is older than the validity
  // window reads untested, since the window's end, evidence kept.
  NodeStatus Status(const std::string& node, absl::Time now) const;

  // Status of every node of `fleet`, by name (each name once).
  std::vector<NodeStatus> Statuses(const std::vector<std::string>& fleet,
                                   absl::Time now) const;

  // The second passes due at `now` for the suspects among `fleet`, by name.
  // A suspect first marked in a single-node group is measured alone again;
  // any other with a partner from PairsWith among the fleet's nodes that are
  // pass at `now` (group_by as in GroupingSpec), each partner used once.
  SecondPassPlan PlanSecondPasses(const std::vector<CampaignNode>& fleet,
                                  const std::string& group_by,
                                  absl::Time now) const;

  // Every node the book holds, by name.
  std::vector<std::string> Nodes() const;

  // Drops a node that left the fleet (its state and the bounded noise pool
  // are the book's only growth).
  void Forget(const std::string& node);

  // The plan's measured noise, relative: the robust sd (1.4826 x MAD) of
  // busbw / reference over the last kNoisePoolSize results judged against
  // peers (ok, a finite positive busbw, a reference with a spread); 0 with
  // fewer than kMinNoisePool of them.
  double NoiseSpread() const;

 private:
  struct NodeState {
    NodeVerdict verdict = NodeVerdict::kUntested;
    absl::Time since = absl::InfinitePast();
    absl::Time last_tested = absl::InfinitePast();
    std::optional<Finding> last_mark;  // the newest low/bad laid on it
    bool mark_alone = false;           // that mark came from a lone node
    bool mark_shared = false;  // that mark was laid on other members too
    std::vector<NodeEvidence> evidence;
  };

  explicit NodeVerdictBook(const VerdictRules& rules) : rules_(rules) {}
  bool Cleared(const std::string& node, absl::Time at) const;
  static bool PeerJudged(const GroupResult& result);
  void PoolDeviation(const GroupResult& result);
  // The spread `result` is judged with: its own (0 stays 0: an absolute
  // reference), or NoiseSpread x its reference when that is wider.
  double JudgedSpread(const GroupResult& result) const;

  VerdictRules rules_;
  std::map<std::string, NodeState> nodes_;
  std::deque<double> deviations_;  // busbw / reference, oldest first
};

}  // namespace fabricpulse::core
