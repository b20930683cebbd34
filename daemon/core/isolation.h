// Isolation: which node (or link between nodes) is behind a slow or failing
// collective, found by bisection over node sets in O(log n) rounds, then
// confirmed by a pairwise check of the suspects (core/pair_matrix.h).
//
// Each round splits the suspects in two halves and measures the collective
// on each half, padded with nodes already cleared so that every set spans
// at least two nodes (a set of one node never crosses the network). Every
// set is measured `repeats` times (IsolateOptions): one number is a
// suspect, never a culprit. A set failed when more than half of its
// measurements failed. A half is slow when it failed where the other ran,
// or when the median of its busbw is below kIsolateSlowFraction x the
// other's median AND its fastest measurement is below the other's slowest
// (the drop is beyond the spread the two sets show). One slow half: the
// suspects become that half, the other is cleared. Neither slow: if the
// whole set was slow against both halves (or failed), the fault lies
// between the halves (a link), else nothing stands out and nobody is
// named. Both slow: more than one fault (or a padding node misbehaves):
// the search stops with both halves as suspects. A link between halves that
// hold more than kMaxPairwiseCheckNodes nodes is narrowed first: the four
// sets of a quarter of one half with a quarter of the other are measured,
// and the one slower than each of the others (as above) holds it; again
// until kNarrowedLinkNodes remain (isolation.cc, NarrowBetween).
//
// The pairwise check runs `pairwise_runs` times; a link (its slowest rank
// pair) is slow only when every run has it kIsolateRunSpreads spreads below
// the reference (confirmed: one bad number never names it) and the mean of
// its runs is below kIsolateSlowFraction x the reference and kIsolateSpreads
// standard errors below it: beyond the measured noise. The reference is the
// median over the nodes of each node's fastest link; the spread, a robust
// one of the links' values and of each link's runs (isolation.cc).
// kIsolateSlowFraction is the regression rule's default threshold (0.9), so
// that a drop a regression reports can be localised once it stands out of the
// noise.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace fabricpulse::core {

// A half (or the whole set) is slow below this share of the other's busbw
// (medians; see above), a link when the mean of its runs is below this
// share of the reference.
inline constexpr double kIsolateSlowFraction = 0.9;
// A link is slow only when the mean of its runs is this many standard
// errors below the reference, and each run this many spreads below it.
inline constexpr double kIsolateSpreads = 3;
inline constexpr double kIsolateRunSpreads = 2;
inline constexpr int kDefaultIsolateRepeats = 3;
inline constexpr int kDefaultPairwiseRuns = 3;
inline constexpr int kMaxIsolateRepeats = 9;
// The pairwise check covers at most this many nodes (it measures every
// rank pair of them); a larger suspect set is reported as it is.
inline constexpr int kMaxPairwiseCheckNodes = 8;
// A link between halves of more than kMaxPairwiseCheckNodes nodes is
// narrowed to this many nodes (two of each side) when it can be.
inline constexpr int kNarrowedLinkNodes = 4;

// One measurement of the collective on a set of nodes.
struct SetMeasurement {
  bool ok = false;
  double busbw = 0;   // bytes per second; 0 when failed
  std::string error;  // when failed
  std::string sweep_id;
};

// One rank pair of the pairwise check, by node.
struct NodePairMeasurement {
  std::string node_a;
  std::string node_b;
  double busbw = 0;
};

// A step of the search, for the evidence.
struct IsolationRound {
  std::vector<std::string> nodes;
  SetMeasurement result;  // one measurement (a pairwise check: its fastest
                          // link, the median of its runs)
  std::string role;       // "all", "half", "crossing", "pairwise check"
};

struct IsolationReport {
  // "node" (culprits holds one node), "link" (culprits holds its two
  // nodes; several links: several pairs), "nodes" (suspects not narrowed
  // further), or "none" (nothing stands out).
  std::string verdict;
  std::vector<std::string> culprits;
  std::vector<IsolationRound> rounds;
  std::string summary;  // one line naming the culprits and the evidence
};

// How to measure: runs the collective on `nodes` (sorted), or the pairwise
// matrix over `nodes` (its network pairs, by node). Errors from either end
// the isolation (a bad request, an unreachable coordinator), unlike a
// failed collective, which is evidence.
struct IsolationProbe {
  std::function<absl::StatusOr<SetMeasurement>(const std::vector<std::string>&)>
      collective;
  std::function<absl::StatusOr<std::vector<NodePairMeasurement>>(
      const std::vector<std::string>&)>
      pairwise;
};

struct IsolateOptions {
  // Measurements of each set (1..kMaxIsolateRepeats).
  int repeats = kDefaultIsolateRepeats;
  // Runs of the pairwise check (1..kMaxIsolateRepeats).
  int pairwise_runs = kDefaultPairwiseRuns;
};

// Isolates over `nodes` (at least 2, distinct). Errors: INVALID_ARGUMENT
// fewer than 2 nodes, or an option out of range (naming it and the range);
// the probe's own errors.
absl::StatusOr<IsolationReport> Isolate(std::vector<std::string> nodes,
                                        const IsolationProbe& probe,
                                        const IsolateOptions& options = {});

}  // namespace fabricpulse::core
