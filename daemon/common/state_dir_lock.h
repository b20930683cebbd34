// One process per state directory: an exclusive flock(2) on a lock file in
// it, held for the life of the object (the process's, for a daemon). The
// kernel drops the lock when the process ends in any way (SIGKILL too), so
// a crashed daemon never leaves a stale lock. The file holds the holder's
// pid, which a refused second process names. The directory itself is
// flocked too, so that deleting or replacing the lock file under a running
// holder does not let a second process in (on file systems that refuse a
// directory's flock, such as NFS, only the file is locked).
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace fabricpulse::common {

class StateDirLock {
 public:
  // The lock file's name inside the directory.
  static constexpr char kFileName[] = "lock";

  // Locks `dir` (which exists) for `owner` (e.g. "fabricpulse-coordinator",
  // used in errors). Never blocks. Errors:
  //   FAILED_PRECONDITION "--state-dir: '<dir>' is in use by another
  //     <owner> (pid N)": another process holds the lock (pid unknown when
  //     the holder has not written it yet, "its lock file was removed or
  //     replaced" when only the directory's lock is held);
  //   other errno-derived codes when the lock file cannot be opened or
  //     locked (naming it).
  // Thread-safe (no shared state).
  static absl::StatusOr<std::unique_ptr<StateDirLock>> Acquire(
      const std::string& dir, absl::string_view owner);
  ~StateDirLock();  // releases the lock
  StateDirLock(const StateDirLock&) = delete;
  StateDirLock& operator=(const StateDirLock&) = delete;

 private:
  StateDirLock(int fd, int dir_fd) : fd_(fd), dir_fd_(dir_fd) {}
  const int fd_;
  const int dir_fd_;  // -1: the directory could not be locked
};

}  // namespace fabricpulse::common
