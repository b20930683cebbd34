// `fabricpulse matrix`'s output: every measured rank pair of a pairwise
// sweep, grouped by node pair, as a table, JSON or CSV.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "client/output/output_options.h"
#include "fabricpulse/v1/types.pb.h"

namespace fabricpulse::client {

// One node pair's rank pairs at one size (node_a <= node_b).
struct NodePairGroup {
  std::string node_a;
  std::string node_b;
  std::string path;  // the pairs' path class (the first pair's)
  uint64_t bytes = 0;
  std::vector<v1::PairResult> pairs;  // by rank_a, rank_b
  double min_busbw = 0;               // bytes per second
  double median_busbw = 0;
  int flagged = 0;
};

struct PairMatrix {
  std::string sweep_id;
  int nranks = 0;
  std::vector<NodePairGroup> groups;  // by size, then node pair
  int pairs = 0;
  int flagged = 0;
  int64_t wrong = 0;
  // The sweep whose matrix confirmed the flagged pairs (matrix_confirm.h);
  // empty when none did.
  std::string confirmed_by;
};

// The matrix of a sweep's results (the pairwise steps'; others ignored).
PairMatrix BuildPairMatrix(const std::string& sweep_id, int nranks,
                           const std::vector<v1::StepResult>& results);

// Table: a comment line per node pair (path, pairs, min and median busbw,
// flagged), then one row per rank pair. JSON: {"sweep_id", "nranks",
// "pairs": [...], "node_pairs": [...]} with units in the keys (seconds,
// bytes per second). CSV: one row per rank pair, units in the header.
void PrintPairMatrix(const PairMatrix& matrix, const OutputOptions& options,
                     std::ostream& out);

}  // namespace fabricpulse::client
