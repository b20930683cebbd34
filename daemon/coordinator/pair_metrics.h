// The pairwise matrix's Prometheus series, per node pair (docs/metrics.md):
//   fabricpulse_pair_busbw_bytes_per_second{node_a,node_b,path}: the lowest
//     busbw of the node pair's rank pairs in the last matrix that measured
//     it (at that matrix's largest size);
//   fabricpulse_pair_flagged{node_a,node_b,path}: how many of those rank
//     pairs were flagged slow.
// node_a <= node_b. At most kMaxNodePairSeries node pairs are exported; a
// node pair first seen beyond that is left out (and logged once).
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <tuple>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "fabricpulse/v1/types.pb.h"
#include "prometheus/family.h"
#include "prometheus/gauge.h"
#include "prometheus/registry.h"

namespace fabricpulse::coordinator {

// 45 nodes' node pairs (with each node's own pair: 45 x 46 / 2 = 1035)
// come close; a larger fleet's matrix is best read from its history.
inline constexpr size_t kMaxNodePairSeries = 1024;

// One node pair's summary of one matrix sweep.
struct NodePairStat {
  uint64_t bytes = 0;  // the largest size measured
  double min_busbw = 0;
  int flagged = 0;
};

// (node_a, node_b, path), node_a <= node_b.
using NodePairKey = std::tuple<std::string, std::string, std::string>;

// Folds one pair into a sweep's node-pair summaries: a larger size starts
// the node pair's summary over, a smaller one is ignored.
void AddPair(const v1::PairResult& pair, uint64_t bytes,
             std::map<NodePairKey, NodePairStat>& stats);

// Thread-safe.
class PairMetrics {
 public:
  explicit PairMetrics(prometheus::Registry& registry);
  // Sets the series of every node pair in `stats`.
  void Publish(const std::map<NodePairKey, NodePairStat>& stats);

 private:
  prometheus::Family<prometheus::Gauge>& busbw_;
  prometheus::Family<prometheus::Gauge>& flagged_;
  absl::Mutex mu_;
  std::set<NodePairKey> exported_ ABSL_GUARDED_BY(mu_);
  bool said_full_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace fabricpulse::coordinator
