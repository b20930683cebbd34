// Checks that keep a folder, and the Unix sockets in it, private to one
// user: the agent's run folder and its workers' sockets.
#pragma once

#include <sys/types.h>

#include <string>

#include "absl/status/status.h"

namespace fabricpulse::common {

// OK when `path` (not followed if it is a symbolic link) is a directory
// owned by `uid` with no permission bits for group or others. Errors:
// NOT_FOUND it does not exist; FAILED_PRECONDITION it is a symbolic link,
// not a directory, owned by another uid, or open to group/others (each
// message names the path and what to do); INTERNAL lstat failed otherwise.
// Thread-safe.
absl::Status CheckPrivateDirectory(const std::string& path, uid_t uid);

// Creates `path` (one level: its parent must exist) with mode 0700 unless
// it exists, then checks it as CheckPrivateDirectory does. An existing
// folder is never loosened or tightened: a wrong one is refused. Errors: as
// CheckPrivateDirectory; NOT_FOUND the parent does not exist; INTERNAL
// mkdir failed otherwise (naming the path and why).
// Thread-safe.
absl::Status EnsurePrivateDirectory(const std::string& path, uid_t uid);

// OK when `path` (not followed) is a Unix socket owned by `uid` with mode
// exactly 0600. Errors: NOT_FOUND it does not exist; FAILED_PRECONDITION
// not a socket, owned by another uid, or another mode (naming which);
// INTERNAL lstat failed otherwise. Thread-safe.
absl::Status CheckPrivateSocket(const std::string& path, uid_t uid);

// "0700" for mode 0700 (permission bits only).
std::string FormatMode(mode_t mode);

}  // namespace fabricpulse::common
