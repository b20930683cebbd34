#include "daemon/coordinator/pair_metrics.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "daemon/core/log.h"

namespace fabricpulse::coordinator {

void AddPair(const v1::PairResult& pair, uint64_t bytes,
             std::map<NodePairKey, NodePairStat>& stats) {
  auto [a, b] = std::minmax(pair.node_a(), pair.node_b());
  NodePairStat& stat = stats[{a, b, pair.path()}];
  if (bytes < stat.bytes) return;
  const double busbw = pair.busbw_bytes_per_second();
  if (bytes > stat.bytes) {
    stat = NodePairStat{bytes, busbw, 0};
  } else {
    stat.min_busbw = std::min(stat.min_busbw, busbw);
  }
  if (pair.flagged()) stat.flagged++;
}

PairMetrics::PairMetrics(prometheus::Registry& registry)
    : busbw_(prometheus::BuildGauge()
                 .Name("fabricpulse_pair_busbw_bytes_per_second")
                 .Help("Lowest busbw of the node pair's rank pairs in the "
                       "last pairwise matrix that measured it")
                 .Register(registry)),
      flagged_(prometheus::BuildGauge()
                   .Name("fabricpulse_pair_flagged")
                   .Help("Rank pairs of the node pair flagged slow in that "
                         "matrix (busbw below half their path class median)")
                   .Register(registry)) {}

void PairMetrics::Publish(const std::map<NodePairKey, NodePairStat>& stats) {
  absl::MutexLock lock(&mu_);
  for (const auto& [key, stat] : stats) {
    if (!exported_.count(key)) {
      if (exported_.size() >= kMaxNodePairSeries) {
        if (!said_full_) {
          FP_LOG_ERROR(absl::StrCat(
              "metrics: ", kMaxNodePairSeries,
              " node pairs exported; further node pairs of pairwise "
              "matrices are not (their history has them)"));
          said_full_ = true;
        }
        continue;
      }
      exported_.insert(key);
    }
    const auto& [a, b, path] = key;
    const prometheus::Labels labels = {
        {"node_a", a}, {"node_b", b}, {"path", path}};
    busbw_.Add(labels).Set(stat.min_busbw);
    flagged_.Add(labels).Set(stat.flagged);
  }
}

}  // namespace fabricpulse::coordinator
