// The message for a command line without a (known) command.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

namespace fabricpulse::client {

// For a parse error with no command (or none under `local`): "unknown
// command 'x'; did you mean ...", or "no command given; ..."; nullopt when a
// command was found (the error is then about its flags).
std::optional<std::string> CommandError(CLI::App& app, CLI::App& local,
                                        const CLI::Error& error);

}  // namespace fabricpulse::client
