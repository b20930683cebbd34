#include "daemon/core/node_verdict.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "daemon/core/name_rules.h"
#include "daemon/core/regression.h"

namespace fabricpulse::core {
namespace {

struct VerdictNameEntry {
  NodeVerdict verdict;
  absl::string_view name;
};
constexpr VerdictNameEntry kVerdictNames[] = {
    {NodeVerdict::kPass, "pass"},       {NodeVerdict::kDegraded, "degraded"},
    {NodeVerdict::kFail, "fail"},       {NodeVerdict::kUntested, "untested"},
    {NodeVerdict::kSuspect, "suspect"},
};

// The milder of two marks: a fail needs both of them bad.
Finding Milder(Finding a, Finding b) {
  return static_cast<int>(a) < static_cast<int>(b) ? a : b;
}

NodeEvidence MakeEvidence(const GroupResult& result, Finding finding,
                          const VerdictThresholds& thresholds) {
  NodeEvidence e;
  e.sweep_id = result.sweep_id;
  e.at = result.at;
  e.group = result.nodes;
  std::sort(e.group.begin(), e.group.end());
  e.finding = finding;
  e.busbw = result.busbw;
  e.reference_busbw = result.reference_busbw;
  const bool judged = result.reference_busbw > 0;
  const bool critical =
      judged && result.ok && !result.data_wrong && finding == Finding::kBad;
  if (judged) {
    // The busbw a result had to fall below: the threshold's share of the
    // reference, and beyond the spread.
    e.threshold_busbw = std::min(
        result.reference_busbw * (critical ? thresholds.critical_fraction
                                           : thresholds.warn_fraction),
        result.reference_busbw - kPeerSpreadMultiple * result.reference_spread);
  }
  if (!result.ok) {
    e.detail = absl::StrCat("failed: ", result.error);
  } else if (result.data_wrong) {
    e.detail = "wrong data";
  } else if (finding == Finding::kBad) {
    e.detail = "below critical";
  } else if (finding == Finding::kLow) {
    e.detail = "below warn";
  } else {
    e.detail = "ok";
  }
  return e;
}

void SetVerdict(NodeVerdict verdict, absl::Time at, NodeVerdict* current,
                absl::Time* since) {
  if (*current == verdict) return;
  *current = verdict;
  *since = at;
}

}  // namespace

absl::string_view VerdictName(NodeVerdict verdict) {
  for (const VerdictNameEntry& entry : kVerdictNames) {
    if (entry.verdict == verdict) return entry.name;
  }
  return "untested";
}

std::optional<NodeVerdict> ParseVerdict(absl::string_view name) {
  for (const VerdictNameEntry& entry : kVerdictNames) {
    if (entry.name == name) return entry.verdict;
  }
  return std::nullopt;
}

absl::Status VerdictThresholds::Validate() const {
  // Written as !(in range) so that NaN fails too.
  if (!(warn_fraction > 0 && warn_fraction <= 1)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "warn_fraction: ", warn_fraction,
        " is out of range; allowed: 0 < critical_fraction <= warn_fraction "
        "<= 1 (a share of the reference busbw, e.g. 0.9)"));
  }
  if (!(critical_fraction > 0 && critical_fraction <= warn_fraction)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "critical_fraction: ", critical_fraction,
        " is out of range; allowed: 0 < critical_fraction <= warn_fraction (",
        warn_fraction, ") <= 1 (a share of the reference busbw, e.g. 0.7)"));
  }
  return absl::OkStatus();
}

absl::Status VerdictRules::Validate() const {
  if (absl::Status status = thresholds.Validate(); !status.ok()) return status;
  if (!(validity > absl::ZeroDuration()) ||
      validity == absl::InfiniteDuration()) {
    return absl::InvalidArgumentError(
        absl::StrCat("validity: ", absl::FormatDuration(validity),
                     " is out of range; allowed: a positive, finite duration "
                     "(e.g. 24h)"));
  }
  return absl::OkStatus();
}

Finding Classify(const GroupResult& result,
                 const VerdictThresholds& thresholds) {
  if (!result.ok || result.data_wrong) return Finding::kBad;
  if (!(result.reference_busbw > 0)) return Finding::kGood;
  if (std::isnan(result.busbw)) return Finding::kBad;  // a broken measurement
  const double beyond_spread =
      result.reference_busbw - kPeerSpreadMultiple * result.reference_spread;
  if (!(result.busbw < beyond_spread)) return Finding::kGood;
  if (result.busbw < thresholds.critical_fraction * result.reference_busbw) {
    return Finding::kBad;
  }
  if (result.busbw < thresholds.warn_fraction * result.reference_busbw) {
    return Finding::kLow;
  }
  return Finding::kGood;
}

absl::StatusOr<NodeVerdictBook> NodeVerdictBook::Create(
    const VerdictRules& rules) {
  if (absl::Status status = rules.Validate(); !status.ok()) return status;
  return NodeVerdictBook(rules);
}

bool NodeVerdictBook::Cleared(const std::string& node, absl::Time at) const {
  auto it = nodes_.find(node);
  return it != nodes_.end() && it->second.verdict == NodeVerdict::kPass &&
         at - it->second.last_tested <= rules_.validity;
}

absl::Status NodeVerdictBook::Record(const GroupResult& result) {
  const std::string what =
      absl::StrCat("group result ", QuotePrefix(result.sweep_id));
  if (result.nodes.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(what, " names no nodes"));
  }
  if (result.at == absl::InfinitePast() ||
      result.at == absl::InfiniteFuture()) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " has no finite time (at)"));
  }
  std::set<std::string> seen;
  for (const std::string& node : result.nodes) {
    if (node.empty() || !seen.insert(node).second) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, " names node ", QuotePrefix(node),
                       node.empty() ? " (empty)" : " twice"));
    }
  }
  // Judged against the wider of the peers' spread and the plan's own (see
  // NoiseSpread); the stored result keeps the peers' spread, so a replay
  // after a restart judges alike.
  GroupResult judged = result;
  judged.reference_spread = JudgedSpread(result);
  const Finding finding = Classify(judged, rules_.thresholds);
  // Who is to blame is decided on the state before this result, for every
  // member alike.
  std::vector<bool> blamed(result.nodes.size(), false);
  size_t blamed_count = 0;
  if (finding != Finding::kGood) {
    for (size_t i = 0; i < result.nodes.size(); ++i) {
      blamed[i] = !Cleared(result.nodes[i], result.at);
      blamed_count += blamed[i] ? 1 : 0;
    }
    if (blamed_count == 0) {
      std::fill(blamed.begin(), blamed.end(), true);
      blamed_count = blamed.size();
    }
  }
  const bool alone = result.nodes.size() == 1;
  for (size_t i = 0; i < result.nodes.size(); ++i) {
    NodeState& s = nodes_[result.nodes[i]];
    // A mark older than the validity window says nothing about today.
    if (s.last_tested != absl::InfinitePast() &&
        result.at - s.last_tested > rules_.validity) {
      s.verdict = NodeVerdict::kUntested;
      s.last_mark.reset();
    }
    NodeEvidence e = MakeEvidence(judged, finding, rules_.thresholds);
    e.blamed = blamed[i];
    if (finding == Finding::kGood) {
      SetVerdict(NodeVerdict::kPass, result.at, &s.verdict, &s.since);
      s.last_mark.reset();
    } else if (!blamed[i]) {
      absl::StrAppend(&e.detail, ", not blamed");
    } else if (!s.last_mark.has_value()) {
      SetVerdict(NodeVerdict::kSuspect, result.at, &s.verdict, &s.since);
      s.last_mark = finding;
      s.mark_alone = alone;
      s.mark_shared = blamed_count > 1;
    } else if (blamed_count == 1) {
      // A shared bad mark says "this node or another was bad"; measured on
      // its own now, this node is only low: that low is its first own mark.
      const bool restart = s.mark_shared && *s.last_mark == Finding::kBad &&
                           finding == Finding::kLow;
      const Finding confirmed = Milder(*s.last_mark, finding);
      SetVerdict(restart                      ? NodeVerdict::kSuspect
                 : confirmed == Finding::kBad ? NodeVerdict::kFail
                                              : NodeVerdict::kDegraded,
                 result.at, &s.verdict, &s.since);
      s.last_mark = finding;
      s.mark_alone = alone;
      s.mark_shared = false;
    }
    if (s.last_tested == absl::InfinitePast() || result.at > s.last_tested) {
      s.last_tested = result.at;
    }
    s.evidence.push_back(std::move(e));
    if (s.evidence.size() > kMaxNodeEvidence) {
      s.evidence.erase(s.evidence.begin());
    }
  }
  PoolDeviation(result);
  return absl::OkStatus();
}

bool NodeVerdictBook::PeerJudged(const GroupResult& result) {
  return result.ok && !result.data_wrong && std::isfinite(result.busbw) &&
         result.busbw > 0 && result.reference_busbw > 0 &&
         result.reference_spread > 0;
}

void NodeVerdictBook::PoolDeviation(const GroupResult& result) {
  if (!PeerJudged(result)) return;
  deviations_.push_back(result.busbw / result.reference_busbw);
  if (deviations_.size() > kNoisePoolSize) deviations_.pop_front();
}

double NodeVerdictBook::NoiseSpread() const {
  if (deviations_.size() < kMinNoisePool) return 0;
  return ScaledMad(std::vector<double>(deviations_.begin(), deviations_.end()));
}

double NodeVerdictBook::JudgedSpread(const GroupResult& result) const {
  if (!(result.reference_spread > 0)) return result.reference_spread;
  return std::max(result.reference_spread,
                  NoiseSpread() * result.reference_busbw);
}

NodeStatus NodeVerdictBook::Status(const std::string& node,
                                   absl::Time now) const {
  NodeStatus status;
  status.node = node;
  auto it = nodes_.find(node);
  if (it == nodes_.end()) return status;
  const NodeState& s = it->second;
  status.last_tested = s.last_tested;
  status.evidence = s.evidence;
  if (now - s.last_tested > rules_.validity) {
    status.verdict = NodeVerdict::kUntested;
    status.since = s.last_tested + rules_.validity;
  } else {
    status.verdict = s.verdict;
    status.since = s.since;
  }
  return status;
}

std::vector<NodeStatus> NodeVerdictBook::Statuses(
    const std::vector<std::string>& fleet, absl::Time now) const {
  std::set<std::string> names(fleet.begin(), fleet.end());
  std::vector<NodeStatus> out;
  out.reserve(names.size());
  for (const std::string& name : names) out.push_back(Status(name, now));
  return out;
}

SecondPassPlan NodeVerdictBook::PlanSecondPasses(
    const std::vector<CampaignNode>& fleet, const std::string& group_by,
    absl::Time now) const {
  std::map<std::string, const CampaignNode*> by_name;
  for (const CampaignNode& node : fleet) by_name.emplace(node.name, &node);
  std::vector<CampaignNode> passed;
  std::vector<const CampaignNode*> suspects;
  for (const auto& [name, node] : by_name) {
    const NodeVerdict verdict = Status(name, now).verdict;
    if (verdict == NodeVerdict::kPass) passed.push_back(*node);
    if (verdict == NodeVerdict::kSuspect) suspects.push_back(node);
  }
  SecondPassPlan plan;
  std::set<std::string> used;
  for (const CampaignNode* suspect : suspects) {
    if (nodes_.at(suspect->name).mark_alone) {
      plan.passes.push_back({suspect->name, {suspect->name}});
      continue;
    }
    std::optional<std::string> partner =
        PairsWith(*suspect, passed, group_by, used);
    if (!partner.has_value()) {
      plan.waiting.push_back(suspect->name);
      continue;
    }
    used.insert(*partner);
    std::vector<std::string> nodes = {suspect->name, *partner};
    std::sort(nodes.begin(), nodes.end());
    plan.passes.push_back({suspect->name, std::move(nodes)});
  }
  return plan;
}

std::vector<std::string> NodeVerdictBook::Nodes() const {
  std::vector<std::string> out;
  out.reserve(nodes_.size());
  for (const auto& [name, state] : nodes_) out.push_back(name);
  return out;
}

void NodeVerdictBook::Forget(const std::string& node) { nodes_.erase(node); }

}  // namespace fabricpulse::core
