// Campaign groups: how a campaign splits a fleet into groups of nodes that
// are measured concurrently (issue 28), and how the second pass of the
// two-pass confirmation picks a partner for a suspect node. Pure functions
// of their arguments: no clock, no I/O; the same inputs give the same
// groups, so a campaign's plan can be reproduced from its rotation number.
//
// Groupings:
//  - node:     each node alone (its GPUs over NVLink/PCIe, no network).
//  - pairs:    each node once per round with a partner on another node
//              (NCCL's network path). Partners follow the circle method of
//              core/pair_schedule.h over the nodes sorted by name, round =
//              rotation mod rounds, so successive campaigns (rotation 0, 1,
//              2, ...) measure every distinct pair once per n - 1 campaigns.
//              With group_by, partners whose label value differs (another
//              rack) are preferred; see PlanGroups.
//  - groups:K: consecutive chunks of K nodes by name.
//  - all:      one group of every node (the fleet-wide sweep of before).
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace fabricpulse::core {

// Range of K in "groups:K": a group of one node is the `node` grouping, and
// 1024 nodes is beyond any single rendezvous we plan for.
inline constexpr int kMinGroupNodes = 2;
inline constexpr int kMaxGroupNodes = 1024;
enum class Grouping { kNode, kPairs, kGroups, kAll };

struct GroupingSpec {
  Grouping kind = Grouping::kAll;
  int k = 0;             // nodes per group for kGroups, 2..1024; else unused
  std::string group_by;  // a label key; empty: labels are not looked at
};

// One node of the fleet as the campaign sees it.
struct CampaignNode {
  std::string name;
  std::map<std::string, std::string> labels;
};

// Parses "node", "pairs", "groups:K" (K in 2..1024) or "all" (surrounding
// whitespace ignored); group_by is left empty (it is its own config key).
// Errors: INVALID_ARGUMENT, one line starting "grouping: " that quotes the
// text and names the allowed values and K's range.
absl::StatusOr<GroupingSpec> ParseGrouping(absl::string_view text);

// The text ParseGrouping reads back: "node", "pairs", "groups:K", "all".
// group_by is not part of it.
std::string GroupingText(const GroupingSpec& spec);

// The groups of one campaign over `nodes` (any order; a repeated name counts
// once, with the labels of its first entry). Each group is sorted by name
// and the groups are sorted; an empty fleet gives no groups.
//  - kNode: one group per node. kAll: one group of every node.
//  - kGroups: chunks of K nodes in name order, the last one smaller; a last
//    chunk of a single node joins the chunk before it (K + 1 nodes), so no
//    group is a single node unless the fleet has one node. Membership does
//    not rotate: a fixed group keeps its busbw comparable across campaigns.
//    A K below 2 is taken as 2.
//  - kPairs: a fleet of one node gives that node alone. Otherwise the pairs
//    of round (rotation mod rounds) of the circle method over the nodes
//    sorted by name. With group_by (a missing label counts as the empty
//    value), the pairs of round r whose two nodes share the label value are
//    re-paired, deterministically and in O(n log n):
//     1. if one label holds more than half of those pairs, its surplus over
//        the others' count stays as it is (the rest could not cross it);
//     2. the other nodes of such pairs, sorted by (label, name), pair
//        position i with position i + half: none of these shares a label;
//     3. each pair kept in step 1 (all of one label L) trades partners with
//        the first pair, by lower name, that has no node of L.
//    The result has the fewest same-label pairs possible (on an even
//    fleet), the pairs that already crossed labels stay but for step 3's
//    trades (so the rotation still varies partners), and a fleet of one
//    label value gets round r unchanged.
//    On an even fleet every node is in exactly one pair. On an odd fleet the
//    node that sits round r out joins a pair as a group of three: the first
//    pair, counting from pair (rotation mod pairs), none of whose nodes
//    shares its label value (with group_by), else that pair itself.
std::vector<std::vector<std::string>> PlanGroups(
    const GroupingSpec& spec, const std::vector<CampaignNode>& nodes,
    uint64_t rotation);

// For the second pass: a partner for `suspect` among `passed` (nodes whose
// verdict is pass), skipping the suspect itself and every name in `used`
// (partners already given to other second passes, so that they can run at
// the same time). With `group_by` set, the first candidate by name whose
// label value differs from the suspect's; if none differs, or group_by is
// empty, the first candidate by name. nullopt when there is no candidate.
std::optional<std::string> PairsWith(const CampaignNode& suspect,
                                     const std::vector<CampaignNode>& passed,
                                     const std::string& group_by,
                                     const std::set<std::string>& used);

}  // namespace fabricpulse::core
