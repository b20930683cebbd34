// The CLI's commands that are not coordinator commands: `certs`, `local`,
// `health`, `node-check`, `config check`, `completion`, `man`, `version`
// and `help`: their flags, and how the one parsed runs. cli_main.cc adds
// them beside the coordinator commands (command_set.h).
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "client/cli/command_set.h"
#include "client/cli/local_command.h"
#include "client/commands/certs_command.h"
#include "client/commands/config_command.h"
#include "client/commands/coordinator_connection.h"
#include "client/commands/health_command.h"
#include "client/commands/node_check_command.h"

namespace fabricpulse::client {

// The commands' flags and their CLI::App; the flags are bound to these
// members, so a ToolCommands stays where AddToolCommands put it while
// `app` parses.
struct ToolCommands {
  CertsFlags certs_flags;
  CLI::App* certs = nullptr;
  LocalFlags local_flags;
  CLI::App* local = nullptr;
  CommandSet in_local;  // the coordinator commands under `local`
  HealthFlags health_flags;
  CLI::App* health = nullptr;
  NodeCheckFlags node_check_flags;
  CLI::App* node_check = nullptr;
  ConfigCheckFlags config_flags;
  CLI::App* config_check = nullptr;
  std::string completion_shell;
  CLI::App* completion = nullptr;
  CLI::App* man = nullptr;
  CLI::App* version = nullptr;
  std::vector<std::string> help_path;
  CLI::App* help = nullptr;
};

// Adds the commands to `app`.
void AddToolCommands(CLI::App& app, ToolCommands& tools);

// Runs the command `app` parsed when it is one of these, and returns its
// exit code; nullopt when it is a coordinator command. `version_line` is
// what `version` and the man page print.
std::optional<int> RunToolCommand(CLI::App& app, ToolCommands& tools,
                                  const CoordinatorTarget& coordinator,
                                  const std::string& version_line);

}  // namespace fabricpulse::client
