#include "daemon/common/private_path.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace fabricpulse::common {
namespace {

// lstat, with its failure as a status naming `what` and `path`.
absl::Status LStat(const std::string& path, const char* what, struct stat* st) {
  if (lstat(path.c_str(), st) == 0) return absl::OkStatus();
  const int err = errno;
  if (err == ENOENT) {
    return absl::NotFoundError(
        absl::StrCat(what, " ", path, " does not exist"));
  }
  return absl::InternalError(
      absl::StrCat("cannot inspect ", what, " ", path, ": ", strerror(err)));
}

absl::Status CheckOwner(const std::string& path, const char* what,
                        const struct stat& st, uid_t uid) {
  if (st.st_uid == uid) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      what, " ", path, " is owned by uid ", st.st_uid, ", not by uid ", uid,
      " that runs this process; refusing it (remove it, or choose another "
      "--run-dir)"));
}

}  // namespace

std::string FormatMode(mode_t mode) {
  return absl::StrFormat("%04o", mode & 07777);
}

absl::Status CheckPrivateDirectory(const std::string& path, uid_t uid) {
  struct stat st;
  absl::Status found = LStat(path, "folder", &st);
  if (!found.ok()) return found;
  if (S_ISLNK(st.st_mode)) {
    return absl::FailedPreconditionError(
        absl::StrCat("folder ", path,
                     " is a symbolic link; refusing it (remove it, or choose "
                     "another --run-dir)"));
  }
  if (!S_ISDIR(st.st_mode)) {
    return absl::FailedPreconditionError(
        absl::StrCat(path,
                     " is not a folder; refusing it (remove it, or "
                     "choose another --run-dir)"));
  }
  absl::Status owner = CheckOwner(path, "folder", st, uid);
  if (!owner.ok()) return owner;
  if ((st.st_mode & 077) != 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "folder ", path, " has mode ", FormatMode(st.st_mode),
        "; it must be 0700 (private to its owner): chmod 700 it, or remove "
        "it"));
  }
  return absl::OkStatus();
}

absl::Status EnsurePrivateDirectory(const std::string& path, uid_t uid) {
  if (mkdir(path.c_str(), 0700) == 0) {
    // The umask can only take bits away; an odd one (e.g. 0277) would leave
    // the owner unable to use the folder. chmod is not subject to it.
    if (chmod(path.c_str(), 0700) != 0) {
      return absl::InternalError(
          absl::StrCat("cannot chmod folder ", path, ": ", strerror(errno)));
    }
  } else if (errno == ENOENT) {
    return absl::NotFoundError(absl::StrCat("cannot create folder ", path,
                                            ": its parent does not exist"));
  } else if (errno != EEXIST) {
    return absl::InternalError(
        absl::StrCat("cannot create folder ", path, ": ", strerror(errno)));
  }
  return CheckPrivateDirectory(path, uid);
}

absl::Status CheckPrivateSocket(const std::string& path, uid_t uid) {
  struct stat st;
  absl::Status found = LStat(path, "socket", &st);
  if (!found.ok()) return found;
  if (!S_ISSOCK(st.st_mode)) {
    return absl::FailedPreconditionError(
        absl::StrCat(path, " is not a Unix socket"));
  }
  absl::Status owner = CheckOwner(path, "socket", st, uid);
  if (!owner.ok()) return owner;
  if ((st.st_mode & 07777) != 0600) {
    return absl::FailedPreconditionError(
        absl::StrCat("socket ", path, " has mode ", FormatMode(st.st_mode),
                     "; it must be 0600"));
  }
  return absl::OkStatus();
}

}  // namespace fabricpulse::common
