// The scheduler's production target: busy GPUs from the coordinator's
// membership (the agents' last heartbeats), sweeps through
// CoordinatorServiceImpl::ExecuteSweep (the CLI's path), deferrals counted
// in fabricpulse_schedule_deferred_total.
#pragma once

#include <vector>

#include "daemon/coordinator/coordinator_metrics.h"
#include "daemon/coordinator/coordinator_service.h"
#include "daemon/coordinator/scheduler.h"

namespace fabricpulse::coordinator {

// Thread-safe (as the service and metrics are).
class ServiceScheduleTarget final : public ScheduleTarget {
 public:
  // `service` and `metrics` must outlive this object.
  ServiceScheduleTarget(CoordinatorServiceImpl* service,
                        CoordinatorMetrics* metrics);

  absl::StatusOr<std::vector<BusyGpu>> BusyGpus(
      const core::ScheduleConfig& schedule) override;
  // Records the sweep with the trigger "schedule:<name>".
  absl::Status Run(const core::ScheduleConfig& schedule) override;
  void Deferred(const core::ScheduleConfig& schedule,
                absl::string_view reason) override;

 private:
  CoordinatorServiceImpl* const service_;
  CoordinatorMetrics* const metrics_;
};

}  // namespace fabricpulse::coordinator
