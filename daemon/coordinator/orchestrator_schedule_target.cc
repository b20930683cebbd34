#include "daemon/coordinator/orchestrator_schedule_target.h"

#include <string>

#include "daemon/coordinator/scheduler.h"

namespace fabricpulse::coordinator {

OrchestratorScheduleTarget::OrchestratorScheduleTarget(
    SweepOrchestrator* orchestrator, CoordinatorMetrics* metrics)
    : orchestrator_(orchestrator), metrics_(metrics) {}

absl::StatusOr<std::vector<BusyGpu>> OrchestratorScheduleTarget::BusyGpus(
    const core::ScheduleConfig& schedule) {
  auto members = orchestrator_->PlanMembers(schedule.plan);
  if (!members.ok()) return members.status();
  return FindBusyGpus(*members);
}

absl::Status OrchestratorScheduleTarget::Run(
    const core::ScheduleConfig& schedule) {
  v1::SweepRequest request;
  request.set_plan(schedule.plan);
  request.set_allow_busy(schedule.allow_busy_gpus);
  return orchestrator_->Execute(request, ScheduleTrigger(schedule.name),
                                [](const v1::SweepEvent&) { return true; });
}

void OrchestratorScheduleTarget::Deferred(const core::ScheduleConfig& schedule,
                                          absl::string_view reason) {
  metrics_->ScheduleDeferred(schedule.name, std::string(reason));
}

}  // namespace fabricpulse::coordinator
