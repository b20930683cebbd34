// The answers of ListPlans and ListSchedules: the coordinator config's plans
// and the scheduler's view of its schedules, with each schedule's newest
// sweep from the history. Pure functions, unit-tested with fixed inputs.
//
// Bounds: plans and schedules are those of one config file (at most 1 MiB,
// core::kMaxConfigFileBytes); each answer stops adding entries once it
// reaches core::kMaxListResponseBytes (16 MiB) and counts the rest in
// left_out.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "daemon/coordinator/scheduler.h"
#include "daemon/coordinator/store/history_store.h"
#include "daemon/core/coordinator_config.h"
#include "fabricpulse/v1/coordinator.pb.h"

namespace fabricpulse::coordinator {

// Every plan of `config` by name, with its spec (core defaults filled in),
// its member nodes and the config's regression settings.
v1::ListPlansResponse ListPlansAnswer(const core::CoordinatorConfig& config);

// One entry per state (Scheduler::Snapshot, file order): the schedule's
// cron, zone, plan and allow_busy_gpus, its next firing (0 when it never
// fires again), whether a firing is pending and why it waits, and its last
// run when `newest` (HistoryStore::NewestByTrigger("schedule:")) holds a
// sweep of its trigger.
v1::ListSchedulesResponse ListSchedulesAnswer(
    const std::vector<ScheduleState>& states,
    const std::map<std::string, SweepRecord>& newest);

}  // namespace fabricpulse::coordinator
