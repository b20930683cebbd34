// The fixed set of values an option takes (--ops, --dtype, --output, ...),
// attached to the CLI11 option itself so that shell completion and the man
// page are written from the same definition as --help. Stored as an
// inactive validator: it checks nothing (each command checks its values and
// says what is allowed) and adds nothing to --help.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace fabricpulse::client {

// Records `values` as the choices of `option`; returns `option`.
CLI::Option* WithChoices(CLI::Option* option,
                         const std::vector<std::string>& values);

// The same from a list written "a, b, c" (core::AllOpNames() and the like).
CLI::Option* WithChoices(CLI::Option* option, absl::string_view joined);

// The values recorded by WithChoices, or those of a CLI::IsMember check;
// empty when the option has neither.
std::vector<std::string> ChoicesOf(CLI::Option& option);

}  // namespace fabricpulse::client
