// The message for a command line without a (known) command, or with a flag
// its command does not take.
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

// For a flag the command does not take (CLI11's ExtrasError), one line:
// "unknown flag '--min-byte' for 'fabricpulse sweep'; did you mean
// '--min-bytes'?" (the nearest long flag of the command and its parents,
// as SuggestCommand picks it), with nccl-tests' reason for one of its
// letters that has no equivalent here (nccl_tests_flags.h), else "...; see
// 'fabricpulse sweep --help'"; nullopt for any other error.
std::optional<std::string> FlagError(CLI::App& app, const CLI::Error& error);

}  // namespace fabricpulse::client
