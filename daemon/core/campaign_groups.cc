#include "daemon/core/campaign_groups.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "daemon/core/name_rules.h"
#include "daemon/core/pair_schedule.h"

namespace fabricpulse::core {
namespace {

using Group = std::vector<std::string>;

constexpr absl::string_view kGroupsPrefix = "groups:";

std::string AllowedGroupings() {
  return absl::StrCat("allowed: node, pairs, groups:K (K from ", kMinGroupNodes,
                      " to ", kMaxGroupNodes, "), all");
}

// A missing label is the empty value, so nodes without the label count as
// one more value ("unknown"), not as different from everything.
std::string LabelOf(const CampaignNode& node, const std::string& key) {
  auto it = node.labels.find(key);
  return it == node.labels.end() ? std::string() : it->second;
}

// The fleet sorted by name, each name once (its first entry), so that the
// plan does not depend on the order agents registered in.
std::vector<const CampaignNode*> SortedUnique(
    const std::vector<CampaignNode>& nodes) {
  std::vector<const CampaignNode*> out;
  out.reserve(nodes.size());
  for (const CampaignNode& node : nodes) out.push_back(&node);
  std::stable_sort(out.begin(), out.end(),
                   [](const CampaignNode* a, const CampaignNode* b) {
                     return a->name < b->name;
                   });
  out.erase(std::unique(out.begin(), out.end(),
                        [](const CampaignNode* a, const CampaignNode* b) {
                          return a->name == b->name;
                        }),
            out.end());
  return out;
}

using Pair = std::pair<int, int>;  // indices into the sorted fleet, a < b

// Re-pairs, across labels where it can, the nodes of round r's pairs whose
// members share a label value; see PlanGroups for the rule.
void PreferOtherLabels(const std::vector<std::string>& labels,
                       std::vector<Pair>* pairs) {
  std::map<std::string, std::vector<size_t>> same;  // label -> pair indices
  size_t same_count = 0;
  for (size_t p = 0; p < pairs->size(); ++p) {
    const auto& [a, b] = (*pairs)[p];
    if (labels[a] == labels[b]) {
      same[labels[a]].push_back(p);
      same_count++;
    }
  }
  if (same.empty()) return;
  // A label holding more than half of these pairs keeps its surplus as they
  // are: dissolving them could not cross them, and keeping circle pairs
  // keeps the rotation (a fleet of one rack gets round r unchanged).
  const std::vector<size_t>* major = nullptr;
  for (const auto& [label, list] : same) {
    if (2 * list.size() > same_count) major = &list;
  }
  std::set<size_t> kept;
  if (major != nullptr) {
    const size_t surplus = 2 * major->size() - same_count;
    kept.insert(major->end() - surplus, major->end());
  }
  // The rest, sorted by label, pair position i with i + half: no label then
  // holds more than half of them, so no new pair shares a label.
  std::vector<int> loose;
  std::vector<size_t> slots;  // the pair indices they free
  for (const auto& [label, list] : same) {
    for (size_t p : list) {
      if (kept.count(p) > 0) continue;
      loose.push_back((*pairs)[p].first);
      loose.push_back((*pairs)[p].second);
      slots.push_back(p);
    }
  }
  std::stable_sort(loose.begin(), loose.end(), [&](int x, int y) {
    return std::tie(labels[x], x) < std::tie(labels[y], y);
  });
  const size_t half = loose.size() / 2;
  for (size_t i = 0; i < half; ++i) {
    const int a = loose[i], b = loose[i + half];
    (*pairs)[slots[i]] = {std::min(a, b), std::max(a, b)};
  }
  if (kept.empty()) return;
  // The kept pairs all share one label L: each trades partners with a pair
  // that has no L member, while one is left ((a, a'), (b, c) -> (a, b),
  // (a', c)). What stays is the fewest same-label pairs there can be.
  std::vector<Pair> stuck, rest;
  for (size_t p = 0; p < pairs->size(); ++p) {
    (kept.count(p) > 0 ? stuck : rest).push_back((*pairs)[p]);
  }
  std::sort(rest.begin(), rest.end());
  const std::string& major_label = labels[stuck.front().first];
  size_t cursor = 0;
  for (Pair& pair : stuck) {
    while (cursor < rest.size() &&
           (labels[rest[cursor].first] == major_label ||
            labels[rest[cursor].second] == major_label)) {
      cursor++;
    }
    if (cursor == rest.size()) break;
    const auto [a, a2] = pair;
    const auto [b, c] = rest[cursor];
    pair = {std::min(a, b), std::max(a, b)};
    rest[cursor] = {std::min(a2, c), std::max(a2, c)};
  }
  rest.insert(rest.end(), stuck.begin(), stuck.end());
  *pairs = std::move(rest);
}

std::vector<Group> PlanPairs(const std::vector<const CampaignNode*>& fleet,
                             const std::string& group_by, uint64_t rotation) {
  const int n = static_cast<int>(fleet.size());
  if (n == 1) return {{fleet[0]->name}};
  // Without group_by every node has the empty label: nothing is re-paired.
  std::vector<std::string> labels;
  labels.reserve(n);
  for (const CampaignNode* node : fleet) {
    labels.push_back(group_by.empty() ? std::string()
                                      : LabelOf(*node, group_by));
  }
  const int round = static_cast<int>(rotation % PairRounds(n));
  std::vector<Pair> pairs;
  int left = -1;
  for (int rank = 0; rank < n; ++rank) {
    const int partner = PairPartner(round, rank, n);
    if (partner < 0) {
      left = rank;
    } else if (partner > rank) {
      pairs.emplace_back(rank, partner);
    }
  }
  if (!group_by.empty()) PreferOtherLabels(labels, &pairs);
  std::sort(pairs.begin(), pairs.end());
  std::vector<Group> groups;
  groups.reserve(pairs.size());
  for (const auto& [a, b] : pairs) {
    groups.push_back({fleet[a]->name, fleet[b]->name});
  }
  if (left < 0) return groups;
  // An odd fleet: the node left over measures as a third member rather than
  // sitting the campaign out; starting at rotation spreads the trios.
  const size_t start = rotation % groups.size();
  size_t chosen = start;
  if (!group_by.empty()) {
    for (size_t step = 0; step < groups.size(); ++step) {
      const size_t g = (start + step) % groups.size();
      const auto& [a, b] = pairs[g];
      if (labels[a] != labels[left] && labels[b] != labels[left]) {
        chosen = g;
        break;
      }
    }
  }
  groups[chosen].push_back(fleet[left]->name);
  std::sort(groups[chosen].begin(), groups[chosen].end());
  std::sort(groups.begin(), groups.end());
  return groups;
}

}  // namespace

absl::StatusOr<GroupingSpec> ParseGrouping(absl::string_view text) {
  const absl::string_view s = absl::StripAsciiWhitespace(text);
  GroupingSpec spec;
  if (s == "node") {
    spec.kind = Grouping::kNode;
  } else if (s == "pairs") {
    spec.kind = Grouping::kPairs;
  } else if (s == "all") {
    spec.kind = Grouping::kAll;
  } else if (absl::StartsWith(s, kGroupsPrefix)) {
    const absl::string_view digits = s.substr(kGroupsPrefix.size());
    // SimpleAtoi alone would take "+8" and " 8"; K is plain digits.
    const bool all_digits =
        !digits.empty() && digits.size() <= 9 &&
        std::all_of(digits.begin(), digits.end(), [](char c) {
          return std::isdigit(static_cast<uint8_t>(c));
        });
    int k = 0;
    if (!all_digits || !absl::SimpleAtoi(digits, &k) || k < kMinGroupNodes ||
        k > kMaxGroupNodes) {
      return absl::InvalidArgumentError(
          absl::StrCat("grouping: ", QuotePrefix(text),
                       " has no valid group size K; ", AllowedGroupings()));
    }
    spec.kind = Grouping::kGroups;
    spec.k = k;
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("grouping: ", QuotePrefix(text), " is not a grouping; ",
                     AllowedGroupings()));
  }
  return spec;
}

std::string GroupingText(const GroupingSpec& spec) {
  switch (spec.kind) {
    case Grouping::kNode:
      return "node";
    case Grouping::kPairs:
      return "pairs";
    case Grouping::kGroups:
      return absl::StrCat(kGroupsPrefix, spec.k);
    case Grouping::kAll:
      return "all";
  }
  return "all";
}

std::vector<std::vector<std::string>> PlanGroups(
    const GroupingSpec& spec, const std::vector<CampaignNode>& nodes,
    uint64_t rotation) {
  const std::vector<const CampaignNode*> fleet = SortedUnique(nodes);
  std::vector<Group> groups;
  if (fleet.empty()) return groups;
  switch (spec.kind) {
    case Grouping::kNode:
      for (const CampaignNode* node : fleet) groups.push_back({node->name});
      return groups;
    case Grouping::kAll: {
      Group all;
      for (const CampaignNode* node : fleet) all.push_back(node->name);
      groups.push_back(std::move(all));
      return groups;
    }
    case Grouping::kGroups: {
      const size_t k = static_cast<size_t>(std::max(spec.k, kMinGroupNodes));
      for (size_t i = 0; i < fleet.size(); i += k) {
        Group group;
        for (size_t j = i; j < std::min(i + k, fleet.size()); ++j) {
          group.push_back(fleet[j]->name);
        }
        // A lone last node would measure no network: it joins the chunk
        // before, whose names all sort before it, so the group stays sorted.
        if (group.size() == 1 && !groups.empty()) {
          groups.back().push_back(group.front());
        } else {
          groups.push_back(std::move(group));
        }
      }
      return groups;
    }
    case Grouping::kPairs:
      return PlanPairs(fleet, spec.group_by, rotation);
  }
  return groups;
}

std::optional<std::string> PairsWith(const CampaignNode& suspect,
                                     const std::vector<CampaignNode>& passed,
                                     const std::string& group_by,
                                     const std::set<std::string>& used) {
  const std::string* first = nullptr;
  const std::string* differing = nullptr;
  for (const CampaignNode& node : passed) {
    if (node.name == suspect.name || used.count(node.name) > 0) continue;
    if (first == nullptr || node.name < *first) first = &node.name;
    if (!group_by.empty() &&
        LabelOf(node, group_by) != LabelOf(suspect, group_by) &&
        (differing == nullptr || node.name < *differing)) {
      differing = &node.name;
    }
  }
  if (differing != nullptr) return *differing;
  if (first != nullptr) return *first;
  return std::nullopt;
}

}  // namespace fabricpulse::core
