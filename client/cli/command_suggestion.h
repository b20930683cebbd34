// "Did you mean" for a mistyped subcommand: `fabricpulse swep` names the
// command it was probably meant to be instead of a bare usage error.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace fabricpulse::client {

// Optimal string alignment distance: insertions, deletions, substitutions
// and swaps of two adjacent characters each cost 1; case-insensitive.
int EditDistance(absl::string_view a, absl::string_view b);

// The candidate `typed` was most probably meant to be: the nearest by
// EditDistance when at most 2 edits away and fewer edits than `typed` has
// characters (the first of equals, in `candidates`' order), else the one
// candidate `typed` (2 or more characters) is a prefix of; nullopt when
// none is close enough.
std::optional<std::string> SuggestCommand(
    absl::string_view typed, const std::vector<std::string>& candidates);

// The error line (without the "fabricpulse: " prefix) for an unknown
// command: "unknown command 'swep'; did you mean 'sweep'?", or, when none is
// close, "unknown command 'x'; commands: a, b, c". `program` ("fabricpulse"
// or "fabricpulse local") names where the commands are listed:
// "...; see '<program> --help'".
std::string UnknownCommandMessage(absl::string_view program,
                                  absl::string_view typed,
                                  const std::vector<std::string>& candidates);

}  // namespace fabricpulse::client
