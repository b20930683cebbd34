// fabricpulse: the command-line client.
#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "client/cli/command_error.h"
#include "client/cli/command_set.h"
#include "client/cli/help_text.h"
#include "client/cli/option_choices.h"
#include "client/cli/tool_commands.h"
#include "client/commands/compare_command.h"
#include "client/commands/coordinator_connection.h"
#include "client/commands/exit_codes.h"
#include "daemon/common/grpc_log.h"
#include "daemon/common/shared_flags.h"
#include "daemon/core/version.h"

int main(int argc, char** argv) {
  // gRPC's own lines only with FABRICPULSE_LOG=debug: every failure is one
  // "fabricpulse: ..." line of the CLI's own.
  fabricpulse::common::RouteGrpcLogs(fabricpulse::core::LogLevel::kDebug);
  using fabricpulse::client::CommandSet;
  using fabricpulse::client::WithChoices;
  CLI::App app{
      "fabricpulse: measure a cluster's collective-communication fabric"};
  app.require_subcommand(1);
  // Global flags are taken after the command too (`sweep --coordinator
  // H:P`): a flag a subcommand lacks falls through to its parent.
  app.fallthrough();
  app.set_version_flag("--version",
                       fabricpulse::core::VersionLine("fabricpulse"),
                       "Print the version and exit");
  app.footer(fabricpulse::client::RootHelpFooter());
  fabricpulse::client::CoordinatorTarget coordinator;
  app.add_option("--coordinator", coordinator.address,
                 "Coordinator address HOST:PORT")
      ->envname("FABRICPULSE_COORDINATOR");
  // `local` runs real TLS with a throwaway CA of its own and ignores these.
  fabricpulse::common::AddTlsFlags(app, coordinator.tls);
  std::string global_output;
  CLI::Option* global_output_flag = WithChoices(
      app.add_option("-o,--output", global_output,
                     "table, json or csv, for agents, plans, schedules, "
                     "sweep, results and diagnose (which also take it after "
                     "the command)"),
      fabricpulse::client::kFormats);
  CommandSet direct;
  fabricpulse::client::AddCommands(app, direct);
  fabricpulse::client::ToolCommands tools;
  fabricpulse::client::AddToolCommands(app, tools);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::optional<std::string> message =
        fabricpulse::client::CommandError(app, *tools.local, e);
    if (!message.has_value()) message = fabricpulse::client::FlagError(app, e);
    fabricpulse::client::PrintError(message.value_or(e.what()));
    return fabricpulse::client::kExitBadInput;
  }
  if (global_output_flag->count() > 0) {
    absl::Status applied = fabricpulse::client::ApplyGlobalOutput(
        tools.local->parsed() ? tools.in_local : direct, global_output);
    if (!applied.ok()) {
      fabricpulse::client::PrintError(std::string(applied.message()));
      return fabricpulse::client::kExitBadInput;
    }
  }
  if (std::optional<int> code = fabricpulse::client::RunToolCommand(
          app, tools, coordinator,
          fabricpulse::core::VersionLine("fabricpulse"))) {
    return *code;
  }
  return fabricpulse::client::RunSelected(direct, coordinator);
}
