// Shell completion for fabricpulse, written from the CLI11 app
// (cli_model.h): `fabricpulse completion bash|zsh` prints it. It completes
// command names (at any depth: `local sweep`, `config check`), the options
// of the command typed so far (its own and, since global flags are taken
// after the command too, its parents'), and the values of options with a
// fixed set (option_choices.h), after a comma too for lists (--ops
// all_reduce,al<TAB>). Anything else falls back to file names.
#pragma once

#include <string>

#include "client/cli/cli_model.h"

namespace fabricpulse::client {

// A bash script that defines _fabricpulse and registers it with
// `complete -o default -F _fabricpulse fabricpulse`.
std::string BashCompletion(const CommandModel& app);

// A zsh script (#compdef fabricpulse) that defines _fabricpulse, with each
// command's and option's description; it registers itself with compdef
// when sourced.
std::string ZshCompletion(const CommandModel& app);

}  // namespace fabricpulse::client
