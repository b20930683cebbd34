#include "daemon/coordinator/config_listing.h"

#include "daemon/common/spec_convert.h"
#include "daemon/coordinator/history_convert.h"
#include "daemon/core/limits.h"

namespace fabricpulse::coordinator {
namespace {

// Appends `entry` to `list` unless the answer would pass the list bound;
// `bytes` counts what was added so far. Returns whether it was added.
template <typename Entry, typename List>
bool AddBounded(Entry entry, List* list, size_t* bytes) {
  *bytes += entry.ByteSizeLong() + 8;  // and its tag and length
  if (*bytes > core::kMaxListResponseBytes) return false;
  *list->Add() = std::move(entry);
  return true;
}

}  // namespace

v1::ListPlansResponse ListPlansAnswer(const core::CoordinatorConfig& config) {
  v1::ListPlansResponse answer;
  v1::RegressionSettings* regression = answer.mutable_regression();
  regression->set_baseline_window(config.baseline_window);
  regression->set_baseline_min_sweeps(config.baseline_min_sweeps);
  regression->set_threshold(config.regression_threshold);
  size_t bytes = answer.ByteSizeLong();
  for (const auto& [name, plan] : config.plans) {
    v1::PlanInfo info;
    info.set_name(name);
    *info.mutable_spec() = common::SpecToProto(plan.spec);
    for (const std::string& node : plan.nodes) info.add_nodes(node);
    if (plan.isolate_on.regression) info.add_isolate_on("regression");
    if (plan.isolate_on.failure) info.add_isolate_on("failure");
    if (plan.campaign) info.set_campaign(plan.campaign->Text());
    if (!AddBounded(std::move(info), answer.mutable_plans(), &bytes)) {
      answer.set_left_out(static_cast<int>(config.plans.size()) -
                          answer.plans_size());
      break;
    }
  }
  return answer;
}

v1::ListSchedulesResponse ListSchedulesAnswer(
    const std::vector<ScheduleState>& states,
    const std::map<std::string, SweepRecord>& newest) {
  v1::ListSchedulesResponse answer;
  size_t bytes = 0;
  for (const ScheduleState& state : states) {
    const core::ScheduleConfig& s = state.schedule;
    v1::ScheduleInfo info;
    info.set_name(s.name);
    info.set_cron(s.cron.expression());
    info.set_timezone(s.cron.time_zone_name());
    info.set_plan(s.plan);
    info.set_allow_busy_gpus(s.allow_busy_gpus);
    info.set_next_unix_seconds(UnixSeconds(state.next));
    info.set_pending(state.pending);
    info.set_waiting_on(state.pending ? state.held : "");
    if (auto it = newest.find(ScheduleTrigger(s.name)); it != newest.end()) {
      v1::ScheduleRun* run = info.mutable_last_run();
      run->set_sweep_id(it->second.id);
      run->set_status(it->second.status);
      run->set_started_unix_seconds(UnixSeconds(it->second.started));
      run->set_finished_unix_seconds(UnixSeconds(it->second.finished));
    }
    if (!AddBounded(std::move(info), answer.mutable_schedules(), &bytes)) {
      answer.set_left_out(static_cast<int>(states.size()) -
                          answer.schedules_size());
      break;
    }
  }
  return answer;
}

}  // namespace fabricpulse::coordinator
