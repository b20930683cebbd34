// The subcommands that talk to a coordinator (agents, plans, schedules,
// nodes, campaign, sweep, results, diagnose, report, abort, matrix, isolate,
// compare):
// their flags, added both at the top level and under `local`, and running the
// one that was parsed.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "client/commands/campaign_command.h"
#include "client/commands/compare_command.h"
#include "client/commands/coordinator_connection.h"
#include "client/commands/isolate_command.h"
#include "client/commands/matrix_command.h"
#include "client/commands/report_command.h"
#include "client/commands/results_command.h"
#include "client/commands/sweep_command.h"

namespace fabricpulse::client {

// The values of --output and --bw-unit.
inline const std::vector<std::string> kFormats = {"table", "json", "csv"};
inline const std::vector<std::string> kBwUnits = {"GBps", "Gbps"};

// The subcommands that talk to a coordinator; added both at the top level
// and under `local`.
struct CommandSet {
  CLI::App* agents = nullptr;
  std::string agents_output = "table";
  CLI::App* plans = nullptr;
  std::string plans_output = "table";
  CLI::App* schedules = nullptr;
  std::string schedules_output = "table";
  CLI::App* nodes = nullptr;
  std::string nodes_plan;
  std::string nodes_output = "table";
  CLI::App* campaign = nullptr;
  CampaignFlags campaign_flags;
  CLI::App* sweep = nullptr;
  CLI::App* abort = nullptr;
  CLI::App* results = nullptr;
  CLI::App* diagnose = nullptr;
  std::string diagnose_sweep_id;
  std::string diagnose_output = "table";
  SweepFlags sweep_flags;
  ResultsFlags results_flags;
  std::string abort_sweep_id;
  CLI::App* matrix = nullptr;
  MatrixFlags matrix_flags;
  CLI::App* isolate = nullptr;
  IsolateFlags isolate_flags;
  CLI::App* report = nullptr;
  ReportFlags report_flags;
  CLI::App* compare = nullptr;
  CompareFlags compare_flags;
};

// Adds the commands and their flags to `app`; `set` keeps what they parse
// into (it must outlive the parse).
void AddCommands(CLI::App& app, CommandSet& set);

// Runs the parsed command of `set` against `coordinator`; its exit code.
int RunSelected(const CommandSet& set, const CoordinatorTarget& coordinator);

// Checks the selected command's flags without a coordinator (for `local`,
// before anything starts; `nranks`: the local cluster's ranks).
absl::Status CheckCommandFlags(const CommandSet& set, int nranks);

// A global --output (given before the command) for the command that takes
// one, unless the command has its own. Errors: INVALID_ARGUMENT the command
// prints no formats.
absl::Status ApplyGlobalOutput(CommandSet& set, const std::string& output);

}  // namespace fabricpulse::client
