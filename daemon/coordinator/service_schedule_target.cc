#include "daemon/coordinator/service_schedule_target.h"

#include <string>

#include "absl/strings/str_cat.h"

namespace fabricpulse::coordinator {

ServiceScheduleTarget::ServiceScheduleTarget(CoordinatorServiceImpl* service,
                                             CoordinatorMetrics* metrics)
    : service_(service), metrics_(metrics) {}

absl::StatusOr<std::vector<BusyGpu>> ServiceScheduleTarget::BusyGpus(
    const core::ScheduleConfig& schedule) {
  auto members = service_->PlanMembers(schedule.plan);
  if (!members.ok()) return members.status();
  return FindBusyGpus(*members);
}

absl::Status ServiceScheduleTarget::Run(const core::ScheduleConfig& schedule) {
  v1::SweepRequest request;
  request.set_plan(schedule.plan);
  return service_->ExecuteSweep(
      request, absl::StrCat("schedule:", schedule.name),
      [](const v1::SweepEvent&) { return true; }, [] { return false; });
}

void ServiceScheduleTarget::Deferred(const core::ScheduleConfig& schedule,
                                     absl::string_view reason) {
  metrics_->ScheduleDeferred(schedule.name, std::string(reason));
}

}  // namespace fabricpulse::coordinator
