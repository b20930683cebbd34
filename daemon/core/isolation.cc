#include "daemon/core/isolation.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "daemon/core/range_error.h"
#include "daemon/core/regression.h"
#include "daemon/core/status_macros.h"

namespace fabricpulse::core {
namespace {

// A set's measurements: failed when more than half failed (the first
// error kept), else the busbw of those that ran.
struct SetSamples {
  bool ok = true;
  std::string error;
  std::vector<double> busbw;

  double median() const { return busbw.empty() ? 0 : Median(busbw); }
  double min() const { return *std::min_element(busbw.begin(), busbw.end()); }
  double max() const { return *std::max_element(busbw.begin(), busbw.end()); }
};

// x is slow against ref: it failed where ref ran, or its median is below
// the fraction of ref's and its fastest below ref's slowest.
bool Slower(const SetSamples& x, const SetSamples& ref) {
  if (!x.ok) return ref.ok;
  if (!ref.ok) return false;
  return x.median() < kIsolateSlowFraction * ref.median() &&
         x.max() < ref.min();
}

double Mean(const std::vector<double>& values) {
  double sum = 0;
  for (double v : values) sum += v;
  return sum / values.size();
}

std::string Gbps(double bytes_per_second) {
  return absl::StrFormat("%.3g GB/s", bytes_per_second / 1e9);
}

std::string Describe(const SetSamples& s) {
  if (!s.ok) return absl::StrCat("failed (", s.error, ")");
  if (s.busbw.size() == 1) return Gbps(s.busbw[0]);
  return absl::StrCat(Gbps(s.median()), " (median of ", s.busbw.size(), ", ",
                      Gbps(s.min()), " to ", Gbps(s.max()), ")");
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
  Search(std::vector<std::string> nodes, const IsolationProbe& probe,
         const IsolateOptions& options)
      : nodes_(std::move(nodes)), probe_(probe), options_(options) {}

  absl::StatusOr<IsolationReport> Run();

 private:
  absl::StatusOr<SetSamples> Measure(const std::vector<std::string>& set,
                                     const std::string& role) {
    SetSamples samples;
    int failed = 0;
    for (int i = 0; i < options_.repeats; ++i) {
      FP_ASSIGN_OR_RETURN(SetMeasurement m, probe_.collective(set));
      report_.rounds.push_back({set, m, role});
      if (m.ok) {
        samples.busbw.push_back(m.busbw);
      } else {
        if (failed++ == 0) samples.error = m.error;
      }
    }
    samples.ok = 2 * failed <= options_.repeats;
    return samples;
  }
  // Judges the suspects by the pairwise matrix over them and up to two
  // cleared nodes.
  absl::Status PairwiseCheck(const SetSamples& all);
  // The fault lies between `a` and `b` (a link) and they hold more nodes
  // than a pairwise check covers: narrows them (see below).
  absl::Status NarrowBetween(std::vector<std::string> a,
                             std::vector<std::string> b);

  const std::vector<std::string> nodes_;
  const IsolationProbe& probe_;
  const IsolateOptions options_;
  IsolationReport report_;
  std::vector<std::string> suspects_;
  std::vector<std::string> cleared_;
  // Whether a set was found slow (or failed) against another.
  bool slow_seen_ = false;
};

absl::StatusOr<IsolationReport> Search::Run() {
  FP_ASSIGN_OR_RETURN(SetSamples current, Measure(nodes_, "all"));
  const SetSamples all = current;
  suspects_ = nodes_;
  bool first = true;
  // The halves a fault lies between (a link), when the search found one.
  std::vector<std::string> between_a, between_b;
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
    FP_ASSIGN_OR_RETURN(SetSamples r1, Measure(t1, "half"));
    FP_ASSIGN_OR_RETURN(SetSamples r2, Measure(t2, "half"));
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
      const SetSamples& weaker = r1.median() < r2.median() ? r1 : r2;
      if (first && !Slower(current, weaker)) {
        report_.verdict = "none";
        report_.summary =
            absl::StrCat("nothing stands out: all ", nodes_.size(), " nodes ",
                         Describe(current), ", halves ", Describe(r1), " and ",
                         Describe(r2));
        return report_;
      }
      slow_seen_ = true;
      between_a = s1;
      between_b = s2;
    }
    // Both halves slow (two faults), or a fault between them: the pairwise
    // check over both halves decides.
    break;
  }
  if (!between_a.empty() &&
      suspects_.size() > static_cast<size_t>(kMaxPairwiseCheckNodes)) {
    FP_RETURN_IF_ERROR(NarrowBetween(between_a, between_b));
  }
  FP_RETURN_IF_ERROR(PairwiseCheck(all));
  return report_;
}

// A link between `a` and `b` slows every set holding both its ends and no
// other. Each round splits both sides in two and measures the four sets of
// a quarter of `a` with a quarter of `b` (each crosses between them); the
// set slower than each of the other three (Slower: beyond their spread,
// every set measured `repeats` times) holds the link, and the rest is
// cleared. Rounds go on until the two sides hold kNarrowedLinkNodes nodes
// (a pairwise check over fewer links has fewer chances to flag a healthy
// one); when no set stands out, the suspects stay as they are.
absl::Status Search::NarrowBetween(std::vector<std::string> a,
                                   std::vector<std::string> b) {
  auto halves = [](const std::vector<std::string>& side) {
    if (side.size() < 2) return std::vector<std::vector<std::string>>{side};
    const size_t h = side.size() / 2;
    return std::vector<std::vector<std::string>>{
        {side.begin(), side.begin() + h}, {side.begin() + h, side.end()}};
  };
  while (a.size() + b.size() > static_cast<size_t>(kNarrowedLinkNodes) &&
         (a.size() > 1 || b.size() > 1)) {
    struct Crossing {
      std::vector<std::string> a, b;
      SetSamples samples;
    };
    std::vector<Crossing> sets;
    for (const std::vector<std::string>& qa : halves(a)) {
      for (const std::vector<std::string>& qb : halves(b)) {
        std::vector<std::string> set = qa;
        set.insert(set.end(), qb.begin(), qb.end());
        std::sort(set.begin(), set.end());
        FP_ASSIGN_OR_RETURN(SetSamples s, Measure(set, "crossing"));
        sets.push_back({qa, qb, std::move(s)});
      }
    }
    const Crossing* slow = nullptr;
    for (const Crossing& c : sets) {
      bool slowest = true;
      for (const Crossing& other : sets) {
        if (&other != &c && !Slower(c.samples, other.samples)) slowest = false;
      }
      if (slowest) slow = &c;
    }
    if (slow == nullptr) break;
    std::set<std::string> kept(slow->a.begin(), slow->a.end());
    kept.insert(slow->b.begin(), slow->b.end());
    for (const std::vector<std::string>* side : {&a, &b}) {
      for (const std::string& n : *side) {
        if (!kept.count(n)) cleared_.push_back(n);
      }
    }
    a = slow->a;
    b = slow->b;
  }
  suspects_ = a;
  suspects_.insert(suspects_.end(), b.begin(), b.end());
  std::sort(suspects_.begin(), suspects_.end());
  return absl::OkStatus();
}

absl::Status Search::PairwiseCheck(const SetSamples& all) {
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
  // Each node pair's slowest rank pair, per run.
  std::map<std::pair<std::string, std::string>, std::vector<double>> links;
  for (int run = 0; run < options_.pairwise_runs; ++run) {
    FP_ASSIGN_OR_RETURN(std::vector<NodePairMeasurement> pairs,
                        probe_.pairwise(set));
    std::map<std::pair<std::string, std::string>, double> slowest;
    for (const NodePairMeasurement& p : pairs) {
      if (p.node_a == p.node_b) continue;
      auto key = std::minmax(p.node_a, p.node_b);
      auto [it, inserted] = slowest.emplace(key, p.busbw);
      if (!inserted) it->second = std::min(it->second, p.busbw);
    }
    for (const auto& [key, busbw] : slowest) links[key].push_back(busbw);
  }
  // The reference: per node, its fastest link (the median of that link's
  // runs); then the median over the nodes. A bad node slows most links of
  // a small set (2 of the 3 of three nodes), so the links' median would be
  // no reference, and the fastest link overall is the one noise lifted
  // most. The noise: the larger of the spread of all the links' values
  // (scaled MAD: robust while bad links are a minority, and wider, never
  // narrower, when they are not) and of each link's runs about their mean,
  // pooled (times sqrt(n / (n - 1)) for the mean's own share).
  std::map<std::string, double> node_best;
  std::vector<double> residuals;
  std::vector<double> values;
  for (const auto& [key, runs] : links) {
    values.insert(values.end(), runs.begin(), runs.end());
    const double m = Median(runs);
    for (const std::string& n : {key.first, key.second}) {
      node_best[n] = std::max(node_best[n], m);
    }
    const double mean = Mean(runs);
    for (double v : runs) residuals.push_back(v - mean);
  }
  std::vector<double> bests;
  for (const auto& [node, b] : node_best) bests.push_back(b);
  const double best = Median(bests);
  const int n_runs = options_.pairwise_runs;
  const double noise = std::max(
      ScaledMad(values),
      n_runs < 2 ? 0
                 : ScaledMad(residuals) * std::sqrt(n_runs / (n_runs - 1.0)));
  // Each run below best less kIsolateRunSpreads spreads (confirmed: one
  // bad number never suffices), and their mean below both the fraction of
  // best and best less kIsolateSpreads standard errors of a mean of n runs.
  const double run_bar = best - kIsolateRunSpreads * noise;
  const double mean_bar =
      std::min(kIsolateSlowFraction * best,
               best - kIsolateSpreads * noise / std::sqrt(n_runs));
  IsolationRound check;
  check.nodes = set;
  check.role = "pairwise check";
  check.result.ok = true;
  check.result.busbw = best;
  report_.rounds.push_back(check);
  // A link some run missed is not judged.
  auto is_slow = [&](const std::vector<double>& runs) {
    return static_cast<int>(runs.size()) == n_runs &&
           *std::max_element(runs.begin(), runs.end()) < run_bar &&
           Mean(runs) < mean_bar;
  };
  std::vector<std::pair<std::string, std::string>> slow;
  std::vector<std::string> evidence;
  for (const auto& [key, runs] : links) {
    const bool link_slow = is_slow(runs);
    if (link_slow) slow.push_back(key);
    std::vector<std::string> figures;
    for (double v : runs) figures.push_back(Gbps(v));
    evidence.push_back(absl::StrCat(key.first, "<->", key.second, " ",
                                    absl::StrJoin(figures, ", "),
                                    link_slow ? " (slow)" : ""));
  }
  const std::string pairs_text = absl::StrJoin(evidence, ", ");
  if (slow.empty() && !slow_seen_) {
    report_.verdict = "none";
    report_.summary =
        absl::StrCat("nothing stands out: all ", nodes_.size(), " nodes ",
                     Describe(all), "; pairwise ", pairs_text);
    return absl::OkStatus();
  }
  if (slow.empty()) {
    // The collective found them, the pairs do not confirm it: suspects,
    // not culprits.
    report_.verdict = "none";
    report_.summary = absl::StrCat(
        "nothing confirmed: ", absl::StrJoin(suspects_, ", "),
        " looked slow in the collective, but no link of the pairwise check "
        "stands out of the noise: ",
        pairs_text);
    return absl::OkStatus();
  }
  // A node all of whose links (at least two) are slow is a culprit; a slow
  // link between two other nodes is one too.
  const std::set<std::pair<std::string, std::string>> slow_set(slow.begin(),
                                                               slow.end());
  std::map<std::string, std::pair<int, int>> per_node;  // slow, links
  for (const auto& [key, runs] : links) {
    const bool link_slow = slow_set.count(key) > 0;
    for (const std::string& n : {key.first, key.second}) {
      per_node[n].second++;
      if (link_slow) per_node[n].first++;
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
                                        const IsolationProbe& probe,
                                        const IsolateOptions& options) {
  for (const auto& [name, value] :
       {std::pair<const char*, int>{"repeats", options.repeats},
        {"pairwise_runs", options.pairwise_runs}}) {
    if (value < 1 || value > kMaxIsolateRepeats) {
      return RangeError(name, absl::StrCat(value),
                        absl::StrCat("1 to ", kMaxIsolateRepeats));
    }
  }
  std::sort(nodes.begin(), nodes.end());
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  if (nodes.size() < 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "nodes: isolation needs at least 2 nodes; got ", nodes.size()));
  }
  Search search(std::move(nodes), probe, options);
  return search.Run();
}

}  // namespace fabricpulse::core
