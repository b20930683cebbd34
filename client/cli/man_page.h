// fabricpulse(1) in roff, written from the CLI11 app (cli_model.h) and the
// tables --help prints from (exit codes, examples): `fabricpulse man`
// prints it, and the build installs it as share/man/man1/fabricpulse.1.
#pragma once

#include <string>

#include "absl/strings/string_view.h"
#include "client/cli/cli_model.h"

namespace fabricpulse::client {

// NAME, SYNOPSIS, DESCRIPTION, OPTIONS (the global ones), COMMANDS (each
// command with its arguments and options, allowed values and defaults),
// EXIT STATUS, EXAMPLES, ENVIRONMENT and SEE ALSO. `version` goes into the
// title line (e.g. "fabricpulse 0.4.0").
std::string ManPage(const CommandModel& app, absl::string_view version);

// `text` safe as roff body text: backslashes escaped, '-' as \-, a leading
// '.' or '\'' guarded.
std::string RoffEscape(absl::string_view text);

}  // namespace fabricpulse::client
