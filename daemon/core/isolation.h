// Isolation: which node (or link between nodes) is behind a slow or failing
// collective, found by bisection over node sets in O(log n) rounds, then
// confirmed by a pairwise check of the suspects (core/pair_matrix.h).
//
// Each round splits the suspects in two halves and measures the collective
// on each half, padded with nodes already cleared so that every set spans
// at least two nodes (a set of one node never crosses the network). A half
// is slow when it fails or its busbw is below kIsolateSlowFraction x the
// other half's. One slow half: the suspects become that half, the other is
// cleared. Neither slow: if the whole set was slow against both halves (or
// failed), the fault lies between the halves (a link), else nothing stands
// out and nobody is named. Both slow: more than one fault (or a padding node
// misbehaves): the search stops with both halves as suspects.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace fabricpulse::core {

// A half (or the whole set) is slow below this share of the other's busbw.
inline constexpr double kIsolateSlowFraction = 0.5;
// The pairwise check covers at most this many nodes (it measures every
// rank pair of them); a larger suspect set is reported as it is.
inline constexpr int kMaxPairwiseCheckNodes = 8;

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
  SetMeasurement result;
  std::string role;  // "all", "half", "pairwise check"
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

// Isolates over `nodes` (at least 2, distinct). Errors: INVALID_ARGUMENT
// fewer than 2 nodes; the probe's own errors.
absl::StatusOr<IsolationReport> Isolate(std::vector<std::string> nodes,
                                        const IsolationProbe& probe);

}  // namespace fabricpulse::core
