// The scheduler's production target: busy GPUs from the coordinator's
// membership (the agents' last heartbeats), sweeps through
// SweepOrchestrator::Execute (the CLI's path), deferrals counted
// in fabricpulse_schedule_deferred_total.
#pragma once

#include <vector>

#include "daemon/coordinator/campaign_runner.h"
#include "daemon/coordinator/coordinator_metrics.h"
#include "daemon/coordinator/scheduler.h"
#include "daemon/coordinator/sweep_orchestrator.h"

namespace fabricpulse::coordinator {

// Thread-safe (as the orchestrator and metrics are).
class OrchestratorScheduleTarget final : public ScheduleTarget {
 public:
  // `orchestrator` and `metrics` must outlive this object.
  // `campaigns` (null: none) starts the schedules of campaign plans: such
  // a firing starts a campaign and returns (a campaign of the plan still
  // running skips it); the campaign looks at busy GPUs node by node.
  OrchestratorScheduleTarget(SweepOrchestrator* orchestrator,
                             CoordinatorMetrics* metrics,
                             CampaignRunner* campaigns = nullptr);

  absl::StatusOr<std::vector<BusyGpu>> BusyGpus(
      const core::ScheduleConfig& schedule) override;
  // Records the sweep with the trigger "schedule:<name>".
  absl::Status Run(const core::ScheduleConfig& schedule) override;
  void Deferred(const core::ScheduleConfig& schedule,
                absl::string_view reason) override;

 private:
  SweepOrchestrator* const orchestrator_;
  CoordinatorMetrics* const metrics_;
  CampaignRunner* const campaigns_;
};

}  // namespace fabricpulse::coordinator
