// Campaign plans' Prometheus series (docs/metrics.md, issue 28):
//   fabricpulse_node_verdict{plan,node,verdict}: 1 for the node's verdict,
//     0 for the other four (pass, degraded, fail, suspect, untested);
//   fabricpulse_node_last_tested_timestamp_seconds{plan,node}: the node's
//     last group result (absent: never tested);
//   fabricpulse_campaign_coverage_ratio{plan}: measured / first-pass nodes
//     of the plan's newest campaign (as it stands while it runs);
//   fabricpulse_campaign_untested_nodes{plan}: its first-pass nodes whose
//     verdict is untested;
//   fabricpulse_campaigns_total{plan,status}: campaigns ended, status
//     finished or interrupted.
// Bounds: a node's series exist while the plan's verdicts list it (its
// book and its live agents: at most agents.max nodes, 16384), 6 per node
// and campaign plan; a node no longer listed loses its series at the next
// Publish.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "daemon/core/node_verdict.h"
#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "prometheus/gauge.h"
#include "prometheus/registry.h"

namespace fabricpulse::coordinator {

// Thread-safe.
class NodeVerdictMetrics {
 public:
  explicit NodeVerdictMetrics(prometheus::Registry& registry);

  // Exports fabricpulse_campaigns_total{plan} at 0 for both statuses.
  void AddPlan(const std::string& plan);
  // Sets the node series of `plan` to `statuses` (every node listed for the
  // plan now), removing those of nodes not in it.
  void Publish(const std::string& plan,
               const std::vector<core::NodeStatus>& statuses);
  // The plan's newest campaign: coverage and untested count; when it
  // ended (`ended`), counts it under `status`.
  void Campaign(const std::string& plan, int fleet, int measured, int untested,
                bool ended, const std::string& status);

 private:
  prometheus::Family<prometheus::Gauge>& verdict_;
  prometheus::Family<prometheus::Gauge>& last_tested_;
  prometheus::Family<prometheus::Gauge>& coverage_;
  prometheus::Family<prometheus::Gauge>& untested_;
  prometheus::Family<prometheus::Counter>& campaigns_;
  absl::Mutex mu_;
  std::map<std::string, std::set<std::string>> exported_ ABSL_GUARDED_BY(mu_);
};

}  // namespace fabricpulse::coordinator
