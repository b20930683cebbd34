// Running the parsed coordinator command (command_set.h).
#include <string>
#include <utility>

#include "client/cli/command_set.h"
#include "client/commands/abort_command.h"
#include "client/commands/agents_command.h"
#include "client/commands/coordinator_connection.h"
#include "client/commands/diagnose_command.h"
#include "client/commands/exit_codes.h"
#include "client/commands/nodes_command.h"
#include "client/commands/plans_command.h"
#include "client/commands/schedules_command.h"
#include "client/output/output_options.h"

namespace fabricpulse::client {

int RunSelected(const CommandSet& set, const CoordinatorTarget& coordinator) {
  if (set.agents->parsed()) {
    return RunAgentsCommand(coordinator, set.agents_output);
  }
  if (set.plans->parsed())
    return RunPlansCommand(coordinator, set.plans_output);
  if (set.schedules->parsed()) {
    return RunSchedulesCommand(coordinator, set.schedules_output);
  }
  if (set.nodes->parsed()) {
    return RunNodesCommand(coordinator, set.nodes_plan, set.nodes_output);
  }
  if (set.campaign->parsed()) {
    return RunCampaignCommand(coordinator, set.campaign_flags);
  }
  if (set.sweep->parsed()) return RunSweepCommand(coordinator, set.sweep_flags);
  if (set.results->parsed()) {
    return RunResultsCommand(coordinator, set.results_flags);
  }
  if (set.diagnose->parsed()) {
    return RunDiagnoseCommand(coordinator, set.diagnose_sweep_id,
                              set.diagnose_output);
  }
  if (set.abort->parsed()) {
    return RunAbortCommand(coordinator, set.abort_sweep_id);
  }
  if (set.matrix->parsed()) {
    return RunMatrixCommand(coordinator, set.matrix_flags);
  }
  if (set.isolate->parsed()) {
    return RunIsolateCommand(coordinator, set.isolate_flags);
  }
  if (set.report->parsed()) {
    return RunReportCommand(coordinator, set.report_flags);
  }
  if (set.compare->parsed()) {
    return RunCompareCommand(coordinator, set.compare_flags);
  }
  PrintError("no subcommand; see --help");
  return kExitBadInput;
}

absl::Status CheckCommandFlags(const CommandSet& set, int nranks) {
  if (set.sweep->parsed()) return CheckSweepFlags(set.sweep_flags, nranks);
  if (set.results->parsed()) return CheckResultsFlags(set.results_flags);
  if (set.report->parsed()) return CheckReportFlags(set.report_flags);
  if (set.diagnose->parsed()) return CheckDiagnoseOutput(set.diagnose_output);
  if (set.matrix->parsed()) return CheckMatrixFlags(set.matrix_flags, nranks);
  if (set.isolate->parsed()) return CheckIsolateFlags(set.isolate_flags);
  for (const auto& [command, output] :
       {std::pair{set.agents, &set.agents_output},
        std::pair{set.plans, &set.plans_output},
        std::pair{set.schedules, &set.schedules_output},
        std::pair{set.nodes, &set.nodes_output}}) {
    if (command->parsed()) return ParseOutputFormat(*output).status();
  }
  return absl::OkStatus();
}

absl::Status ApplyGlobalOutput(CommandSet& set, const std::string& output) {
  struct Target {
    CLI::App* command;
    std::string* output;
  };
  for (const Target& t : {Target{set.agents, &set.agents_output},
                          Target{set.plans, &set.plans_output},
                          Target{set.schedules, &set.schedules_output},
                          Target{set.nodes, &set.nodes_output},
                          Target{set.sweep, &set.sweep_flags.output},
                          Target{set.results, &set.results_flags.output},
                          Target{set.diagnose, &set.diagnose_output},
                          Target{set.matrix, &set.matrix_flags.output},
                          Target{set.isolate, &set.isolate_flags.output}}) {
    if (!t.command->parsed()) continue;
    if (t.command->get_option("--output")->count() == 0) *t.output = output;
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(
      "--output: only agents, plans, schedules, nodes, sweep, results, "
      "diagnose, matrix and isolate print formats");
}

}  // namespace fabricpulse::client
