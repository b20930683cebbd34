// The coordinator's Prometheus series (registered once, references cached).
#pragma once

#include <string>

#include "prometheus/counter.h"
#include "prometheus/gauge.h"
#include "prometheus/registry.h"

namespace fabricpulse::coordinator {

// Thread-safe (prometheus-cpp metrics are).
class CoordinatorMetrics {
 public:
  explicit CoordinatorMetrics(prometheus::Registry& registry);

  // outcome: succeeded, failed, aborted.
  void SweepFinished(const std::string& outcome, double duration_seconds);

 private:
  prometheus::Family<prometheus::Counter>& sweeps_;
  prometheus::Counter& succeeded_;
  prometheus::Counter& failed_;
  prometheus::Counter& aborted_;
  prometheus::Gauge& last_duration_;
};

}  // namespace fabricpulse::coordinator
