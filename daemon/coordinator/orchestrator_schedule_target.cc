#include "daemon/coordinator/orchestrator_schedule_target.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "daemon/coordinator/scheduler.h"
#include "daemon/core/log.h"

namespace fabricpulse::coordinator {

OrchestratorScheduleTarget::OrchestratorScheduleTarget(
    SweepOrchestrator* orchestrator, CoordinatorMetrics* metrics,
    CampaignRunner* campaigns)
    : orchestrator_(orchestrator), metrics_(metrics), campaigns_(campaigns) {}

namespace {
bool IsCampaign(CampaignRunner* campaigns, const std::string& plan) {
  return campaigns != nullptr && campaigns->IsCampaignPlan(plan);
}
}  // namespace

absl::StatusOr<std::vector<BusyGpu>> OrchestratorScheduleTarget::BusyGpus(
    const core::ScheduleConfig& schedule) {
  if (IsCampaign(campaigns_, schedule.plan)) return std::vector<BusyGpu>();
  auto members = orchestrator_->PlanMembers(schedule.plan);
  if (!members.ok()) return members.status();
  return FindBusyGpus(*members);
}

absl::Status OrchestratorScheduleTarget::Run(
    const core::ScheduleConfig& schedule) {
  if (IsCampaign(campaigns_, schedule.plan)) {
    absl::StatusOr<std::string> id =
        campaigns_->Start(schedule.plan, ScheduleTrigger(schedule.name));
    if (id.ok() || id.status().code() != absl::StatusCode::kAlreadyExists) {
      return id.status();
    }
    FP_LOG_WARNING(absl::StrCat("schedule ", schedule.name,
                                ": firing skipped: ", id.status().message()));
    return absl::OkStatus();
  }
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
