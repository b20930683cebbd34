#include "client/cli/tool_commands.h"

#include <iostream>

#include "absl/time/clock.h"
#include "client/cli/cli_model.h"
#include "client/cli/completion_script.h"
#include "client/cli/help_command.h"
#include "client/cli/man_page.h"
#include "client/commands/exit_codes.h"

namespace fabricpulse::client {

void AddToolCommands(CLI::App& app, ToolCommands& tools) {
  tools.certs = app.add_subcommand(
      "certs",
      "Make a CA of FabricPulse's own in DIR (first use) and issue "
      "certificates for identities, e.g. --issue coordinator/main "
      "--issue agent/node-a --issue operator/alice");
  tools.certs
      ->add_option("dir", tools.certs_flags.dir, "Folder for the CA and files")
      ->required();
  tools.certs
      ->add_option("--issue", tools.certs_flags.issue,
                   "ROLE/NAME to issue (coordinator, agent, operator, "
                   "viewer); repeatable or comma-separated")
      ->delimiter(',');
  tools.certs
      ->add_option("--dns", tools.certs_flags.dns,
                   "DNS SANs for every certificate issued (FabricPulse checks "
                   "identities, not host names; other TLS clients may)")
      ->delimiter(',');
  tools.certs->add_option("--ip", tools.certs_flags.ip, "IP SANs, likewise")
      ->delimiter(',');
  tools.certs
      ->add_option("--days", tools.certs_flags.days, "Validity of a new CA")
      ->capture_default_str();
  tools.certs
      ->add_option("--trust-domain", tools.certs_flags.trust_domain,
                   "SPIFFE trust domain of the identities")
      ->capture_default_str();

  CLI::App* local = tools.local = app.add_subcommand(
      "local",
      "Run a coordinator and agents on this machine, run the subcommand, "
      "tear down");
  local->require_subcommand(1);
  local
      ->add_option("--backend", tools.local_flags.backend, "auto, nccl or gloo")
      ->check(CLI::IsMember({"auto", "nccl", "gloo"}))
      ->capture_default_str();
  local
      ->add_option("--agents", tools.local_flags.agents,
                   "Agents (nodes) to run")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  local
      ->add_option("--ranks", tools.local_flags.ranks,
                   "Ranks per agent, one GPU each with nccl (default: 2 with "
                   "gloo; with nccl the visible GPUs shared among the "
                   "agents)")
      ->check(CLI::Range(1, 64));
  local->add_option("--state-dir", tools.local_flags.state_dir,
                    "Keep the coordinator's history in this folder across "
                    "runs (created when missing), so that results, report "
                    "and compare see earlier local sweeps (default: a "
                    "temporary folder, removed at the end)");
  local->add_option("--config", tools.local_flags.config,
                    "The coordinator's config: plans, schedules, baselines "
                    "(e.g. deploy/config/coordinator.yaml, the shipped one); "
                    "checked before anything starts; a schedule fires only "
                    "while the command runs");
  AddCommands(*local, tools.in_local);
  // Not under `local`: it asks any daemon, not the local cluster.
  CLI::App* health = tools.health = app.add_subcommand(
      "health",
      "Ask a daemon's grpc.health.v1 (its plaintext --health-listen "
      "HOST:PORT, or with --tls-server its main port); exit 0 when SERVING");
  health->add_option("address", tools.health_flags.address, "HOST:PORT")
      ->required();
  health->add_option("--service", tools.health_flags.service,
                     "Service name (default: the server as a whole)");
  health
      ->add_option("--tls-server", tools.health_flags.tls_server,
                   "Ask over mutual TLS with --tls-cert, --tls-key and "
                   "--tls-ca (a daemon's main gRPC port); the server's "
                   "certificate must name this role")
      ->check(CLI::IsMember({"coordinator", "agent"}));

  // Not under `local`: it reads the file of this node's agent.
  CLI::App* node_check = tools.node_check = app.add_subcommand(
      "node-check",
      "node-problem-detector's custom plugin: read this node's verdict from "
      "the agent's --verdict-file; exit 0 OK (pass, suspect), 1 problem "
      "(fail, degraded), 2 unknown (no or stale file, untested, expired), "
      "one line of at most 80 characters");
  node_check
      ->add_option("--verdict-file", tools.node_check_flags.verdict_file,
                   "The agent's --verdict-file")
      ->required();
  node_check
      ->add_option("--max-age", tools.node_check_flags.max_age,
                   "A file older than this means the agent is gone (it "
                   "rewrites it every minute): unknown; 2m to 24h")
      ->capture_default_str();

  // Not under `local`: it reads a file and starts nothing.
  CLI::App* config = app.add_subcommand(
      "config", "Coordinator config files (plans and schedules)");
  config->require_subcommand(1);
  tools.config_check = config->add_subcommand(
      "check",
      "Validate a coordinator config file as the coordinator would at start "
      "and print its plans and the schedules' next firings; exit 0 valid, 2 "
      "invalid (the error names the line and field)");
  tools.config_check
      ->add_option("file", tools.config_flags.file, "The YAML file")
      ->required();

  // Written from `app` itself (every command and option above), so they
  // cannot drift from --help.
  tools.completion = app.add_subcommand(
      "completion",
      "Print a shell completion script: fabricpulse completion bash > "
      "/etc/bash_completion.d/fabricpulse");
  tools.completion->add_option("shell", tools.completion_shell, "bash or zsh")
      ->required()
      ->check(CLI::IsMember({"bash", "zsh"}));
  tools.man = app.add_subcommand(
      "man", "Print the manual page (roff): fabricpulse man | man -l -");
  tools.version = app.add_subcommand(
      "version", "Print the version and exit (as --version)");
  tools.help = app.add_subcommand(
      "help",
      "Print a command's help (help sweep, help local sweep) or, alone, this "
      "help; as COMMAND --help");
  tools.help->add_option("command", tools.help_path, "The command's words");
}

std::optional<int> RunToolCommand(CLI::App& app, ToolCommands& tools,
                                  const CoordinatorTarget& coordinator,
                                  const std::string& version_line) {
  if (tools.local->parsed()) {
    tools.local_flags.ranks_given =
        tools.local->get_option("--ranks")->count() > 0;
    return RunLocal(tools.local_flags, tools.in_local);
  }
  if (tools.certs->parsed()) return RunCertsCommand(tools.certs_flags);
  if (tools.version->parsed()) {
    std::cout << version_line << "\n";
    return std::cout.flush() ? kExitOk : kExitFailed;
  }
  if (tools.help->parsed()) {
    return RunHelpCommand(app, tools.help_path, std::cout);
  }
  if (tools.completion->parsed() || tools.man->parsed()) {
    const CommandModel model = DescribeApp(app);
    std::cout << (tools.man->parsed() ? ManPage(model, version_line)
                  : tools.completion_shell == "zsh" ? ZshCompletion(model)
                                                    : BashCompletion(model));
    return std::cout.flush() ? kExitOk : kExitFailed;
  }
  if (tools.config_check->parsed()) {
    return RunConfigCheck(tools.config_flags, absl::Now(), std::cout);
  }
  if (tools.node_check->parsed()) {
    return RunNodeCheckCommand(tools.node_check_flags);
  }
  if (tools.health->parsed()) {
    return RunHealthCommand(tools.health_flags, coordinator.tls);
  }
  return std::nullopt;
}

}  // namespace fabricpulse::client
