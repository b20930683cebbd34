// Writing a file that readers poll (a feature file, a status file) so that
// a reader sees the old text or the new, never half of one: write a
// temporary beside it, then rename it over the file.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace fabricpulse::common {

// Writes `content` to `temp_path` (same folder as `path`), then renames it to
// `path`. Errors: INTERNAL naming the path and the system's reason (the
// temporary is removed then).
absl::Status WriteFileAtomically(const std::string& path,
                                 const std::string& temp_path,
                                 absl::string_view content);

// Removes `path`; a file already gone is not an error. Errors: INTERNAL.
absl::Status RemoveFileIfPresent(const std::string& path);

}  // namespace fabricpulse::common
