// fabricpulse: the command-line client.
#include <CLI/CLI.hpp>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "absl/time/clock.h"
#include "client/cli/cli_model.h"
#include "client/cli/command_error.h"
#include "client/cli/command_set.h"
#include "client/cli/completion_script.h"
#include "client/cli/help_command.h"
#include "client/cli/help_text.h"
#include "client/cli/local_command.h"
#include "client/cli/man_page.h"
#include "client/cli/option_choices.h"
#include "client/commands/certs_command.h"
#include "client/commands/compare_command.h"
#include "client/commands/config_command.h"
#include "client/commands/coordinator_connection.h"
#include "client/commands/exit_codes.h"
#include "client/commands/health_command.h"
#include "client/commands/node_check_command.h"
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
  fabricpulse::client::CertsFlags certs_flags;
  CLI::App* certs = app.add_subcommand(
      "certs",
      "Make a CA of FabricPulse's own in DIR (first use) and issue "
      "certificates for identities, e.g. --issue coordinator/main "
      "--issue agent/node-a --issue operator/alice");
  certs->add_option("dir", certs_flags.dir, "Folder for the CA and files")
      ->required();
  certs
      ->add_option("--issue", certs_flags.issue,
                   "ROLE/NAME to issue (coordinator, agent, operator, "
                   "viewer); repeatable or comma-separated")
      ->delimiter(',');
  certs
      ->add_option("--dns", certs_flags.dns,
                   "DNS SANs for every certificate issued (FabricPulse checks "
                   "identities, not host names; other TLS clients may)")
      ->delimiter(',');
  certs->add_option("--ip", certs_flags.ip, "IP SANs, likewise")
      ->delimiter(',');
  certs->add_option("--days", certs_flags.days, "Validity of a new CA")
      ->capture_default_str();
  certs
      ->add_option("--trust-domain", certs_flags.trust_domain,
                   "SPIFFE trust domain of the identities")
      ->capture_default_str();

  fabricpulse::client::LocalFlags local_flags;
  CLI::App* local = app.add_subcommand(
      "local",
      "Run a coordinator and agents on this machine, run the subcommand, "
      "tear down");
  local->require_subcommand(1);
  local->add_option("--backend", local_flags.backend, "auto, nccl or gloo")
      ->check(CLI::IsMember({"auto", "nccl", "gloo"}))
      ->capture_default_str();
  local->add_option("--agents", local_flags.agents, "Agents (nodes) to run")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  local
      ->add_option("--ranks", local_flags.ranks,
                   "Ranks per agent, one GPU each with nccl (default: 2 with "
                   "gloo; with nccl the visible GPUs shared among the "
                   "agents)")
      ->check(CLI::Range(1, 64));
  local->add_option("--state-dir", local_flags.state_dir,
                    "Keep the coordinator's history in this folder across "
                    "runs (created when missing), so that results, report "
                    "and compare see earlier local sweeps (default: a "
                    "temporary folder, removed at the end)");
  local->add_option("--config", local_flags.config,
                    "The coordinator's config: plans, schedules, baselines "
                    "(e.g. deploy/config/coordinator.yaml, the shipped one); "
                    "checked before anything starts; a schedule fires only "
                    "while the command runs");
  CommandSet in_local;
  fabricpulse::client::AddCommands(*local, in_local);
  // Not under `local`: it asks any daemon, not the local cluster.
  fabricpulse::client::HealthFlags health_flags;
  CLI::App* health = app.add_subcommand(
      "health",
      "Ask a daemon's grpc.health.v1 (its plaintext --health-listen "
      "HOST:PORT, or with --tls-server its main port); exit 0 when SERVING");
  health->add_option("address", health_flags.address, "HOST:PORT")->required();
  health->add_option("--service", health_flags.service,
                     "Service name (default: the server as a whole)");
  health
      ->add_option("--tls-server", health_flags.tls_server,
                   "Ask over mutual TLS with --tls-cert, --tls-key and "
                   "--tls-ca (a daemon's main gRPC port); the server's "
                   "certificate must name this role")
      ->check(CLI::IsMember({"coordinator", "agent"}));

  // Not under `local`: it reads the file of this node's agent.
  fabricpulse::client::NodeCheckFlags node_check_flags;
  CLI::App* node_check = app.add_subcommand(
      "node-check",
      "node-problem-detector's custom plugin: read this node's verdict from "
      "the agent's --verdict-file; exit 0 OK (pass, suspect), 1 problem "
      "(fail, degraded), 2 unknown (no or stale file, untested, expired), "
      "one line of at most 80 characters");
  node_check
      ->add_option("--verdict-file", node_check_flags.verdict_file,
                   "The agent's --verdict-file")
      ->required();
  node_check
      ->add_option("--max-age", node_check_flags.max_age,
                   "A file older than this means the agent is gone (it "
                   "rewrites it every minute): unknown; 2m to 24h")
      ->capture_default_str();

  // Not under `local`: it reads a file and starts nothing.
  fabricpulse::client::ConfigCheckFlags config_flags;
  CLI::App* config = app.add_subcommand(
      "config", "Coordinator config files (plans and schedules)");
  config->require_subcommand(1);
  CLI::App* config_check = config->add_subcommand(
      "check",
      "Validate a coordinator config file as the coordinator would at start "
      "and print its plans and the schedules' next firings; exit 0 valid, 2 "
      "invalid (the error names the line and field)");
  config_check->add_option("file", config_flags.file, "The YAML file")
      ->required();

  // Written from `app` itself (every command and option above), so they
  // cannot drift from --help.
  std::string completion_shell;
  CLI::App* completion = app.add_subcommand(
      "completion",
      "Print a shell completion script: fabricpulse completion bash > "
      "/etc/bash_completion.d/fabricpulse");
  completion->add_option("shell", completion_shell, "bash or zsh")
      ->required()
      ->check(CLI::IsMember({"bash", "zsh"}));
  CLI::App* man = app.add_subcommand(
      "man", "Print the manual page (roff): fabricpulse man | man -l -");
  CLI::App* version = app.add_subcommand(
      "version", "Print the version and exit (as --version)");
  std::vector<std::string> help_path;
  CLI::App* help = app.add_subcommand(
      "help",
      "Print a command's help (help sweep, help local sweep) or, alone, this "
      "help; as COMMAND --help");
  help->add_option("command", help_path, "The command's words");

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
        fabricpulse::client::CommandError(app, *local, e);
    if (!message.has_value()) message = fabricpulse::client::FlagError(app, e);
    fabricpulse::client::PrintError(message.value_or(e.what()));
    return fabricpulse::client::kExitBadInput;
  }
  if (global_output_flag->count() > 0) {
    absl::Status applied = fabricpulse::client::ApplyGlobalOutput(
        local->parsed() ? in_local : direct, global_output);
    if (!applied.ok()) {
      fabricpulse::client::PrintError(std::string(applied.message()));
      return fabricpulse::client::kExitBadInput;
    }
  }
  if (local->parsed()) {
    local_flags.ranks_given = local->get_option("--ranks")->count() > 0;
    return fabricpulse::client::RunLocal(local_flags, in_local);
  }
  if (certs->parsed()) return fabricpulse::client::RunCertsCommand(certs_flags);
  if (version->parsed()) {
    std::cout << fabricpulse::core::VersionLine("fabricpulse") << "\n";
    return std::cout.flush() ? fabricpulse::client::kExitOk
                             : fabricpulse::client::kExitFailed;
  }
  if (help->parsed()) {
    return fabricpulse::client::RunHelpCommand(app, help_path, std::cout);
  }
  if (completion->parsed() || man->parsed()) {
    const fabricpulse::client::CommandModel model =
        fabricpulse::client::DescribeApp(app);
    std::cout << (man->parsed() ? fabricpulse::client::ManPage(
                                      model, fabricpulse::core::VersionLine(
                                                 "fabricpulse"))
                  : completion_shell == "zsh"
                      ? fabricpulse::client::ZshCompletion(model)
                      : fabricpulse::client::BashCompletion(model));
    return std::cout.flush() ? fabricpulse::client::kExitOk
                             : fabricpulse::client::kExitFailed;
  }
  if (config_check->parsed()) {
    return fabricpulse::client::RunConfigCheck(config_flags, absl::Now(),
                                               std::cout);
  }
  if (node_check->parsed()) {
    return fabricpulse::client::RunNodeCheckCommand(node_check_flags);
  }
  if (health->parsed()) {
    return fabricpulse::client::RunHealthCommand(health_flags, coordinator.tls);
  }
  return fabricpulse::client::RunSelected(direct, coordinator);
}
