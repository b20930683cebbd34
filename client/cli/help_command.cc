#include "client/cli/help_command.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "client/cli/command_suggestion.h"
#include "client/commands/coordinator_connection.h"
#include "client/commands/exit_codes.h"

namespace fabricpulse::client {

int RunHelpCommand(CLI::App& root, const std::vector<std::string>& path,
                   std::ostream& out) {
  CLI::App* at = &root;
  std::vector<std::string> walked = {"fabricpulse"};
  std::string usage = root.get_name();  // as --help names it: argv[0] ...
  for (const std::string& name : path) {
    CLI::App* next = nullptr;
    std::vector<std::string> names;
    for (CLI::App* sub : at->get_subcommands({})) {
      names.push_back(sub->get_name());
      if (sub->get_name() == name) next = sub;
    }
    if (next == nullptr) {
      PrintError(UnknownCommandMessage(absl::StrJoin(walked, " "),
                                       name.substr(0, 64), names));
      return kExitBadInput;
    }
    at = next;
    walked.push_back(name);
    absl::StrAppend(&usage, usage.empty() ? "" : " ", name);
  }
  // The formatter, not at->help(): that prints the help of the command
  // parsed last (this `help` itself) when asked of the root.
  out << at->get_formatter()->make_help(at, usage, CLI::AppFormatMode::Normal);
  return out.flush() ? kExitOk : kExitFailed;
}

}  // namespace fabricpulse::client
