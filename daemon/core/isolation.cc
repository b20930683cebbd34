#include "daemon/core/isolation.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "daemon/core/status_macros.h"

namespace fabricpulse::core {
namespace {

// x is slow against ref: it failed where ref ran, or is below the fraction.
bool Slower(const SetMeasurement& x, const SetMeasurement& ref) {
  if (!x.ok) return ref.ok;
  if (!ref.ok) return false;
  return x.busbw < kIsolateSlowFraction * ref.busbw;
}

std::string Gbps(double bytes_per_second) {
  return absl::StrFormat("%.3g GB/s", bytes_per_second / 1e9);
}

std::string Describe(const SetMeasurement& m) {
  return m.ok ? Gbps(m.busbw) : absl::StrCat("failed (", m.error, ")");
}

// `part` padded with cleared nodes to at least two nodes (when it can be).
std::vector<std::string> Padded(const std::vector<std::string>& part,
                                const std::vector<std::string>& cleared) {
  std::vector<std::string> set = part;
  for (size_t i = 0; set.size() < 2 && i < cleared.size(); ++i) {
    set.push_back(cleared[i]);
  }
  std::sort(set.begin(), set.end());
  return set;
}

class Search {
 public:
  Search(std::vector<std::string> nodes, const IsolationProbe& probe)
      : nodes_(std::move(nodes)), probe_(probe) {}

  absl::StatusOr<IsolationReport> Run();

 private:
  absl::StatusOr<SetMeasurement> Measure(const std::vector<std::string>& set,
                                         const std::string& role) {
    FP_ASSIGN_OR_RETURN(SetMeasurement m, probe_.collective(set));
    report_.rounds.push_back({set, m, role});
    return m;
  }
  // Judges the suspects by the pairwise matrix over them and up to two
  // cleared nodes.
  absl::Status PairwiseCheck();

  const std::vector<std::string> nodes_;
  const IsolationProbe& probe_;
  IsolationReport report_;
  std::vector<std::string> suspects_;
  std::vector<std::string> cleared_;
  // Whether a set was found slow (or failed) against another.
  bool slow_seen_ = false;
};

absl::StatusOr<IsolationReport> Search::Run() {
  FP_ASSIGN_OR_RETURN(SetMeasurement current, Measure(nodes_, "all"));
  suspects_ = nodes_;
  bool first = true;
  while (suspects_.size() > 1) {
    const size_t half = suspects_.size() / 2;
    const std::vector<std::string> s1(suspects_.begin(),
                                      suspects_.begin() + half);
    const std::vector<std::string> s2(suspects_.begin() + half,
                                      suspects_.end());
    const std::vector<std::string> t1 = Padded(s1, cleared_);
    const std::vector<std::string> t2 = Padded(s2, cleared_);
    // Halves of one node with nothing cleared to pair them with: only the
    // pairwise check can tell them apart.
    if (t1.size() < 2 || t2.size() < 2) break;
    FP_ASSIGN_OR_RETURN(SetMeasurement r1, Measure(t1, "half"));
    FP_ASSIGN_OR_RETURN(SetMeasurement r2, Measure(t2, "half"));
    const bool both_failed = !r1.ok && !r2.ok;
    const bool slow1 = both_failed || Slower(r1, r2);
    const bool slow2 = both_failed || Slower(r2, r1);
    if (slow1 || slow2) slow_seen_ = true;
    if (slow1 != slow2) {
      const bool first_slow = slow1;
      for (const std::string& n : first_slow ? s2 : s1) cleared_.push_back(n);
      suspects_ = first_slow ? s1 : s2;
      current = first_slow ? r1 : r2;
      first = false;
      continue;
    }
    if (!slow1) {
      // Neither half is slow. The whole set was (against both halves), or
      // this set was found slow last round: the fault lies between them.
      SetMeasurement weaker = r1.busbw < r2.busbw ? r1 : r2;
      if (first && !Slower(current, weaker)) {
        report_.verdict = "none";
        report_.summary =
            absl::StrCat("nothing stands out: all ", nodes_.size(), " nodes ",
                         Describe(current), ", halves ", Describe(r1), " and ",
                         Describe(r2));
        return report_;
      }
      slow_seen_ = true;
    }
    // Both halves slow (two faults), or a fault between them: the pairwise
    // check over both halves decides.
    break;
  }
  FP_RETURN_IF_ERROR(PairwiseCheck());
  return report_;
}

absl::Status Search::PairwiseCheck() {
  if (suspects_.size() > static_cast<size_t>(kMaxPairwiseCheckNodes)) {
    report_.verdict = "nodes";
    report_.culprits = suspects_;
    report_.summary = absl::StrCat(
        "narrowed to ", suspects_.size(), " nodes (",
        absl::StrJoin(suspects_, ", "), "), more than the ",
        kMaxPairwiseCheckNodes,
        " a pairwise check covers; run `fabricpulse matrix --nodes` on them");
    return absl::OkStatus();
  }
  std::vector<std::string> set = suspects_;
  for (size_t i = 0; i < cleared_.size() && i < 2; ++i) {
    set.push_back(cleared_[i]);
  }
  std::sort(set.begin(), set.end());
  FP_ASSIGN_OR_RETURN(std::vector<NodePairMeasurement> pairs,
                      probe_.pairwise(set));
  // Each node pair's slowest rank pair.
  std::map<std::pair<std::string, std::string>, double> links;
  for (const NodePairMeasurement& p : pairs) {
    if (p.node_a == p.node_b) continue;
    auto key = std::minmax(p.node_a, p.node_b);
    auto [it, inserted] = links.emplace(key, p.busbw);
    if (!inserted) it->second = std::min(it->second, p.busbw);
  }
  IsolationRound check;
  check.nodes = set;
  check.role = "pairwise check";
  check.result.ok = true;
  double best = 0;
  for (const auto& [key, busbw] : links) best = std::max(best, busbw);
  check.result.busbw = best;
  report_.rounds.push_back(check);
  std::vector<std::pair<std::string, std::string>> slow;
  std::vector<std::string> evidence;
  for (const auto& [key, busbw] : links) {
    const bool is_slow = busbw < kIsolateSlowFraction * best;
    if (is_slow) slow.push_back(key);
    evidence.push_back(absl::StrCat(key.first, "<->", key.second, " ",
                                    Gbps(busbw), is_slow ? " (slow)" : ""));
  }
  const std::string pairs_text = absl::StrJoin(evidence, ", ");
  if (slow.empty() && !slow_seen_) {
    report_.verdict = "none";
    report_.summary = absl::StrCat(
        "nothing stands out: all ", nodes_.size(), " nodes ",
        Describe(report_.rounds.front().result), "; pairwise ", pairs_text);
    return absl::OkStatus();
  }
  if (slow.empty()) {
    // The collective found them, the pairs do not: name the suspects.
    report_.verdict = suspects_.size() == 1 ? "node" : "nodes";
    report_.culprits = suspects_;
    report_.summary = absl::StrCat(
        suspects_.size() == 1 ? "node " : "nodes ",
        absl::StrJoin(suspects_, ", "),
        " slow in the collective; its pairs look even: ", pairs_text);
    return absl::OkStatus();
  }
  // A node all of whose links (at least two) are slow is a culprit; a slow
  // link between two other nodes is one too.
  std::map<std::string, std::pair<int, int>> per_node;  // slow, links
  for (const auto& [key, busbw] : links) {
    const bool is_slow = busbw < kIsolateSlowFraction * best;
    for (const std::string& n : {key.first, key.second}) {
      per_node[n].second++;
      if (is_slow) per_node[n].first++;
    }
  }
  std::set<std::string> bad_nodes;
  for (const auto& [node, counts] : per_node) {
    if (counts.second >= 2 && counts.first == counts.second) {
      bad_nodes.insert(node);
    }
  }
  std::vector<std::string> named;
  for (const std::string& n : bad_nodes) {
    report_.culprits.push_back(n);
    named.push_back(absl::StrCat("node ", n));
  }
  for (const auto& [a, b] : slow) {
    if (bad_nodes.count(a) || bad_nodes.count(b)) continue;
    report_.culprits.push_back(a);
    report_.culprits.push_back(b);
    named.push_back(absl::StrCat("link ", a, "<->", b));
  }
  if (bad_nodes.empty()) {
    report_.verdict = "link";
  } else {
    report_.verdict = report_.culprits.size() == 1 ? "node" : "nodes";
  }
  report_.summary =
      absl::StrCat(absl::StrJoin(named, ", "), ": pairwise ", pairs_text);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<IsolationReport> Isolate(std::vector<std::string> nodes,
                                        const IsolationProbe& probe) {
  std::sort(nodes.begin(), nodes.end());
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  if (nodes.size() < 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "nodes: isolation needs at least 2 nodes; got ", nodes.size()));
  }
  Search search(std::move(nodes), probe);
  return search.Run();
}

}  // namespace fabricpulse::core
