#include "daemon/coordinator/coordinator_metrics.h"

namespace fabricpulse::coordinator {

CoordinatorMetrics::CoordinatorMetrics(prometheus::Registry& registry)
    : sweeps_(prometheus::BuildCounter()
                  .Name("fabricpulse_sweeps_total")
                  .Help("Sweeps finished, by outcome")
                  .Register(registry)),
      succeeded_(sweeps_.Add({{"outcome", "succeeded"}})),
      failed_(sweeps_.Add({{"outcome", "failed"}})),
      aborted_(sweeps_.Add({{"outcome", "aborted"}})),
      last_duration_(prometheus::BuildGauge()
                         .Name("fabricpulse_last_sweep_duration_seconds")
                         .Help("Wall time of the last finished sweep")
                         .Register(registry)
                         .Add({})) {}

void CoordinatorMetrics::SweepFinished(const std::string& outcome,
                                       double duration_seconds) {
  if (outcome == "succeeded") {
    succeeded_.Increment();
  } else if (outcome == "aborted") {
    aborted_.Increment();
  } else {
    failed_.Increment();
  }
  last_duration_.Set(duration_seconds);
}

}  // namespace fabricpulse::coordinator
