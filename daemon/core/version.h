// The version every binary prints for --version and exports as
// fabricpulse_build_info{version}: the CMake project version, plus the git
// commit when the build knew it (cmake/version_header.cmake).
#pragma once

#include <string>

#include "absl/strings/string_view.h"

namespace fabricpulse::core {

// "NUMBER", or "NUMBER+COMMIT" when the commit is known, with ".dirty"
// after the commit when the tree had uncommitted changes (semantic
// versioning's build metadata), e.g. "0.1.0+1a2b3c4d5e6f.dirty".
std::string FormatVersion(absl::string_view number, absl::string_view commit,
                          bool dirty);

// Its pieces: the project version number, the git commit ("" when the
// build did not know it) and whether the tree had uncommitted changes.
absl::string_view VersionNumber();
absl::string_view GitCommit();
bool GitDirty();

// This build's version, as FormatVersion writes it. Thread-safe.
const std::string& Version();

// "<binary> <Version()>": the --version line.
std::string VersionLine(absl::string_view binary);

}  // namespace fabricpulse::core
