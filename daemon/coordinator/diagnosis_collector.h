// Gathers every member's flight records for a sweep and diagnoses them.
#pragma once

#include <string>
#include <vector>

#include "daemon/coordinator/agent_client.h"
#include "daemon/core/clock.h"
#include "daemon/core/diagnosis.h"
#include "daemon/core/timeout_budget.h"
#include "fabricpulse/v1/types.pb.h"

namespace fabricpulse::coordinator {

// Asks each agent of `agents` (in sweep rank order, as SweepRunner assigns)
// for its workers' flight records of `sweep_id`, in parallel and bounded by
// the budget's agent call; an agent that does not answer makes its ranks
// unreachable, with the reason. One report per rank.
std::vector<core::RankReport> CollectRankReports(
    const std::string& sweep_id, const std::vector<v1::AgentInfo>& agents,
    AgentClients& clients, core::Clock* clock,
    const core::TimeoutBudget& timeouts = core::kTimeouts);

// CollectRankReports, then core::Diagnose at `clock`'s now.
core::Diagnosis CollectAndDiagnose(
    const std::string& sweep_id, const std::vector<v1::AgentInfo>& agents,
    AgentClients& clients, core::Clock* clock,
    const core::TimeoutBudget& timeouts = core::kTimeouts);

}  // namespace fabricpulse::coordinator
