#include "daemon/coordinator/diagnosis_collector.h"

#include "absl/strings/str_cat.h"
#include "daemon/common/spec_convert.h"
#include "daemon/coordinator/agent_fan_out.h"
#include "daemon/coordinator/sweep_runner.h"

namespace fabricpulse::coordinator {

std::vector<core::RankReport> CollectRankReports(
    const std::string& sweep_id, const std::vector<v1::AgentInfo>& agents,
    AgentClients& clients, core::Clock* clock,
    const core::TimeoutBudget& timeouts) {
  const auto assignments = SweepRunner::AssignRanks(agents);
  const auto answers =
      FlightRecordsAll(clients, agents, sweep_id, timeouts.AgentRpc(), clock);

  std::vector<core::RankReport> reports;
  for (size_t i = 0; i < agents.size(); ++i) {
    const v1::AgentInfo& agent = agents[i];
    for (const v1::RankAssignment& a : assignments[i]) {
      core::RankReport report;
      report.rank = a.rank();
      report.node = agent.node_name();
      for (const v1::WorkerInfo& w : agent.workers()) {
        if (w.local_index() == a.local_index()) report.gpu = w.gpu();
      }
      if (!answers[i].ok()) {
        report.reachable = false;
        report.unreachable_reason =
            absl::StrCat("agent ", agent.node_name(), " at ", agent.address(),
                         " did not answer: ", answers[i].status().message());
      } else {
        report.reachable = false;
        report.unreachable_reason = "not reported by its agent";
        for (const v1::RankFlightRecords& r : answers[i]->ranks()) {
          if (r.local_index() != a.local_index()) continue;
          report.reachable = r.reachable();
          report.unreachable_reason = r.unreachable_reason();
          for (const auto& rec : r.records()) {
            report.records.push_back(common::FlightRecordFromProto(rec));
          }
        }
      }
      reports.push_back(std::move(report));
    }
  }
  return reports;
}

core::Diagnosis CollectAndDiagnose(const std::string& sweep_id,
                                   const std::vector<v1::AgentInfo>& agents,
                                   AgentClients& clients, core::Clock* clock,
                                   const core::TimeoutBudget& timeouts) {
  return core::Diagnose(
      CollectRankReports(sweep_id, agents, clients, clock, timeouts),
      clock->Now());
}

}  // namespace fabricpulse::coordinator
