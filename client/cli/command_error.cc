#include "client/cli/command_error.h"

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "client/cli/command_suggestion.h"
#include "client/cli/nccl_tests_flags.h"

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

// The deepest command given ("fabricpulse local sweep": local's sweep).
CLI::App* DeepestCommand(CLI::App& app) {
  CLI::App* where = &app;
  for (;;) {
    std::vector<CLI::App*> parsed = where->get_subcommands();
    if (parsed.empty()) return where;
    where = parsed.front();
  }
}

// "fabricpulse local sweep" for local's sweep.
std::string CommandPath(CLI::App* command) {
  std::vector<std::string> words;
  for (CLI::App* a = command; a != nullptr; a = a->get_parent()) {
    words.insert(words.begin(),
                 a->get_parent() == nullptr ? "fabricpulse" : a->get_name());
  }
  return absl::StrJoin(words, " ");
}

// The long flags `command` takes, its own first, then its parents'.
std::vector<std::string> LongFlags(CLI::App* command) {
  std::vector<std::string> flags;
  for (CLI::App* a = command; a != nullptr; a = a->get_parent()) {
    for (const CLI::Option* option : a->get_options()) {
      for (const std::string& name : option->get_lnames()) {
        flags.push_back(absl::StrCat("--", name));
      }
    }
  }
  return flags;
}

}  // namespace

std::optional<std::string> FlagError(CLI::App& app, const CLI::Error& error) {
  // CLI11 names an ExtrasError after the app that raised it: its type says.
  if (dynamic_cast<const CLI::ExtrasError*>(&error) == nullptr) {
    return std::nullopt;
  }
  std::string typed;
  for (const std::string& arg : app.remaining(/*recurse=*/true)) {
    if (arg.size() > 1 && arg[0] == '-') {
      typed = arg.substr(0, arg.find('='));
      break;
    }
  }
  if (typed.empty()) return std::nullopt;
  CLI::App* command = DeepestCommand(app);
  const std::string path = CommandPath(command);
  const std::string head =
      absl::StrCat("unknown flag '", typed, "' for '", path, "'");
  if (command->get_name() == "sweep") {
    if (std::optional<std::string> why =
            NcclTestsFlagWithoutEquivalent(typed)) {
      return absl::StrCat(head, ": ", *why);
    }
  }
  if (absl::StartsWith(typed, "--")) {
    if (std::optional<std::string> near =
            SuggestCommand(typed, LongFlags(command))) {
      return absl::StrCat(head, "; did you mean '", *near, "'?");
    }
  }
  return absl::StrCat(head, "; see '", path, " --help'");
}

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
