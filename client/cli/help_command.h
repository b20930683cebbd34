// `fabricpulse help [COMMAND...]` and `fabricpulse version`: the habits of
// git, kubectl and docker, beside --help and --version.
#pragma once

#include <CLI/CLI.hpp>
#include <ostream>
#include <string>
#include <vector>

namespace fabricpulse::client {

// Prints the help of the command `path` names under `root` (empty: the
// root's own) to `out` and returns 0; an unknown name gets the unknown
// command line (with a suggestion) on stderr and 2, as a mistyped command
// does.
int RunHelpCommand(CLI::App& root, const std::vector<std::string>& path,
                   std::ostream& out);

}  // namespace fabricpulse::client
