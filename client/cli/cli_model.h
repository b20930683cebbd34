// The CLI's commands and options read back from the CLI11 app that parses
// them: the one source for shell completion (completion_script.h) and the
// man page (man_page.h), so that neither can drift from --help.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace fabricpulse::client {

struct OptionModel {
  std::vector<std::string> names;  // "--ops", "-h"; empty for positionals
  std::string positional;          // the positional's name, else ""
  std::string description;         // as --help shows it
  std::string type_name;           // "TEXT", "INT", ...; "" for flags
  std::string default_value;       // as --help shows it; "" when none
  bool takes_value = false;        // false for flags
  bool required = false;
  std::string envname;               // the variable that stands in, or ""
  std::vector<std::string> choices;  // ChoicesOf (option_choices.h)
};

struct CommandModel {
  std::string name;  // "" for the program itself
  std::string path;  // "local sweep"; "" for the program itself
  std::string description;
  std::vector<OptionModel> options;       // this command's own, --help first
  std::vector<OptionModel> positionals;   // in order
  std::vector<CommandModel> subcommands;  // in the order --help lists them
};

// The whole tree of `app`: every subcommand, recursively, with its options.
CommandModel DescribeApp(CLI::App& app);

// Every command of `root` but the root itself, depth first, parents before
// their subcommands.
std::vector<const CommandModel*> AllCommands(const CommandModel& root);

}  // namespace fabricpulse::client
