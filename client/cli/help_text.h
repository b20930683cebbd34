// The footers of `fabricpulse --help` and the allowed values of the sweep
// flags, each written from the table it documents.
#pragma once

#include <string>

#include "absl/strings/string_view.h"

namespace fabricpulse::client {

// "Examples:" then a few command lines, each with what it does.
std::string ExamplesFooter();

// "Exit codes:" then one line per code of kExitCodeMeanings.
std::string ExitCodesFooter();

// Both, for the top-level help.
std::string RootHelpFooter();

// `help` followed by "; allowed: " and `allowed` (a table's names, e.g.
// core::AllOpNames()).
std::string WithAllowed(absl::string_view help, absl::string_view allowed);

}  // namespace fabricpulse::client
