#include "client/cli/command_error.h"

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "client/cli/command_suggestion.h"

namespace fabricpulse::client {
namespace {

// The subcommands of `app`, in the order --help lists them.
std::vector<std::string> CommandNames(CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands({})) {
    names.push_back(sub->get_name());
  }
  return names;
}

}  // namespace

std::optional<std::string> CommandError(CLI::App& app, CLI::App& local,
                                        const CLI::Error& error) {
  CLI::App* where = &app;
  std::string program = "fabricpulse";
  if (local.parsed()) {
    where = &local;
    program = "fabricpulse local";
  }
  if (!where->get_subcommands().empty()) return std::nullopt;
  // A word where the command should be, wherever CLI11 left it (under
  // `local` it falls through to the top level).
  for (const std::string& arg : app.remaining(/*recurse=*/true)) {
    if (!arg.empty() && arg[0] != '-') {
      return UnknownCommandMessage(program, arg, CommandNames(*where));
    }
  }
  if (error.get_name() == "RequiredError" &&
      absl::StrContains(error.what(), "ubcommand")) {
    return absl::StrCat("no command given; commands: ",
                        absl::StrJoin(CommandNames(*where), ", "), "; see '",
                        program, " --help'");
  }
  return std::nullopt;
}

}  // namespace fabricpulse::client
