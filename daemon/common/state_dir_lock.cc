#include "daemon/common/state_dir_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace fabricpulse::common {
namespace {

// The holder's pid as it wrote it; 0 when unreadable (not written yet).
long HolderPid(int fd) {
  char buffer[32] = {0};
  const ssize_t n = pread(fd, buffer, sizeof(buffer) - 1, 0);
  long pid = 0;
  if (n <= 0 || !absl::SimpleAtoi(absl::StripAsciiWhitespace(absl::string_view(
                                      buffer, static_cast<size_t>(n))),
                                  &pid)) {
    return 0;
  }
  return pid;
}

}  // namespace

absl::StatusOr<std::unique_ptr<StateDirLock>> StateDirLock::Acquire(
    const std::string& dir, absl::string_view owner) {
  const std::string path = absl::StrCat(dir, "/", kFileName);
  auto failed = [&](absl::string_view what, int error) {
    return absl::Status(
        absl::ErrnoToStatusCode(error),
        absl::StrCat("--state-dir: cannot ", what, " '", path,
                     "': ", std::generic_category().message(error)));
  };
  // O_NOFOLLOW: a link planted in the directory is not followed; O_CLOEXEC:
  // children do not inherit (and so hold) the lock.
  const int fd =
      open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return failed("open the lock file", errno);
  auto in_use = [&](absl::string_view holder) {
    return absl::FailedPreconditionError(absl::StrCat(
        "--state-dir: '", dir, "' is in use by another ", owner, " (", holder,
        "); stop it, or give this one another --state-dir"));
  };
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    if (error != EWOULDBLOCK) {
      close(fd);
      return failed("lock", error);
    }
    const long pid = HolderPid(fd);
    close(fd);
    return in_use(pid > 0 ? absl::StrCat("pid ", pid) : "pid unknown");
  }
  // The directory's lock outlives a removed or replaced lock file.
  int dir_fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd >= 0 && flock(dir_fd, LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    close(dir_fd);
    dir_fd = -1;
    if (error == EWOULDBLOCK) {
      close(fd);
      return in_use("its lock file was removed or replaced");
    }
  }
  const std::string text = absl::StrCat(getpid(), "\n");
  if (ftruncate(fd, 0) != 0 || pwrite(fd, text.data(), text.size(), 0) !=
                                   static_cast<ssize_t>(text.size())) {
    const int error = errno;
    close(fd);
    if (dir_fd >= 0) close(dir_fd);
    return failed("write the lock file", error);
  }
  return std::unique_ptr<StateDirLock>(new StateDirLock(fd, dir_fd));
}

StateDirLock::~StateDirLock() {
  close(fd_);
  if (dir_fd_ >= 0) close(dir_fd_);
}

}  // namespace fabricpulse::common
