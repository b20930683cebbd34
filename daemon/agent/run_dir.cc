#include "daemon/agent/run_dir.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "daemon/common/private_path.h"
#include "daemon/common/unix_socket.h"
#include "daemon/core/log.h"

namespace fabricpulse::agent {
namespace {

// Another agent exiting at the same moment may remove the folders between
// our mkdir and open; that many fresh tries are plenty.
constexpr int kLockAttempts = 10;

bool SafeChar(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '.' ||
         c == '_' || c == '-';
}

uint64_t Fnv1a64(absl::string_view s) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

// A short, printable prefix of a user-supplied name for messages.
std::string Quote(absl::string_view name) {
  std::string out;
  for (char c : name.substr(0, 48)) {
    out.push_back(absl::ascii_isprint(static_cast<unsigned char>(c)) ? c : '?');
  }
  return absl::StrCat("'", out, name.size() > 48 ? "...'" : "'");
}

// The pid written in a lock file ("" when none could be read).
std::string HolderPid(int fd) {
  char buf[32] = {0};
  const ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
  int pid = 0;
  if (n <= 0 ||
      !absl::SimpleAtoi(absl::StripAsciiWhitespace(absl::string_view(buf, n)),
                        &pid) ||
      pid <= 0) {
    return "";
  }
  return absl::StrCat(pid);
}

std::string Describe(const std::error_code& ec) { return ec.message(); }

// A predecessor's worker that is stopped or stuck still listens on its
// socket after its agent's death (the SIGTERM that death sent it waits):
// name it, since it may hold a GPU. Not killed here: its pid is only what
// the kernel recorded at listen().
void WarnIfStillServed(const std::string& path) {
  struct stat st;
  if (lstat(path.c_str(), &st) != 0 || !S_ISSOCK(st.st_mode)) return;
  auto fd = common::ConnectUnixSocket(path);
  if (!fd.ok()) return;  // nobody listens: a plain leftover
  auto peer = common::GetPeerCredentials(fd->get());
  if (!peer.ok()) return;
  FP_LOG_WARNING(absl::StrCat(
      "a worker of the previous agent (pid ", peer->pid, ", uid ", peer->uid,
      ") still listens on ", path,
      "; it was sent SIGTERM when its agent died and may be stopped or "
      "stuck: check it (it may hold a GPU)"));
}

}  // namespace

std::string DefaultRunDirBase() {
  const char* xdg = std::getenv("XDG_RUNTIME_DIR");
  if (xdg != nullptr && xdg[0] == '/') return xdg;
  return "/tmp";
}

std::string NodeDirName(absl::string_view node_name) {
  bool safe = !node_name.empty() && node_name.size() <= kMaxNodeDirName &&
              node_name[0] != '.';
  for (char c : node_name) safe = safe && SafeChar(c);
  if (safe) return std::string(node_name);
  std::string prefix;
  for (char c : node_name.substr(0, 23))
    prefix.push_back(SafeChar(c) ? c : '_');
  if (!prefix.empty() && prefix[0] == '.') prefix[0] = '_';
  return absl::StrCat(prefix, "-",
                      absl::StrFormat("%016x", Fnv1a64(node_name)));
}

std::string RunDir::Entry(absl::string_view name) const {
  return absl::StrCat(path_, "/", name);
}

absl::StatusOr<std::unique_ptr<RunDir>> RunDir::Acquire(
    const RunDirOptions& options) {
  std::string base = options.base.empty() ? DefaultRunDirBase() : options.base;
  while (base.size() > 1 && base.back() == '/') base.pop_back();
  if (base[0] != '/') {
    return absl::InvalidArgumentError(
        absl::StrCat("--run-dir: ", Quote(base), " is not an absolute path"));
  }
  struct stat st;
  if (stat(base.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--run-dir: ", Quote(base),
        " is not an existing folder; create it, or choose another"));
  }
  if ((st.st_mode & S_IWOTH) != 0 && (st.st_mode & S_ISVTX) == 0) {
    FP_LOG_WARNING(absl::StrCat(
        "--run-dir ", base, " (mode ", common::FormatMode(st.st_mode),
        ") is writable by every user and not sticky: another user could "
        "rename the agent's folder in it; prefer a private folder or one "
        "with mode 1777"));
  }
  std::unique_ptr<RunDir> d(new RunDir);
  d->uid_dir_ = absl::StrCat(base == "/" ? std::string() : base,
                             "/fabricpulse-agent-", geteuid());
  d->path_ = absl::StrCat(d->uid_dir_, "/", NodeDirName(options.node_name));
  const std::string longest = d->Entry(options.longest_entry);
  if (longest.size() > common::kMaxUnixSocketPath) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--run-dir: worker sockets such as ", longest, " would be ",
        longest.size(), " bytes, longer than the ", common::kMaxUnixSocketPath,
        " a Unix socket address allows; choose a shorter --run-dir"));
  }
  absl::Status locked = d->Lock(d->uid_dir_, options.node_name);
  if (!locked.ok()) {
    d->path_.clear();  // not ours: the destructor must leave it alone
    return locked;
  }
  absl::MutexLock lock(&d->mu_);
  const int fd = d->lock_.get();
  const std::string previous = HolderPid(fd);
  // What a killed predecessor left: its workers' sockets (a worker that
  // outlived it unlinks only its own file, which has its boot id in the
  // name, so it cannot remove one of ours).
  int stale = 0;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(d->path_, ec)) {
    if (entry.path().filename() == kRunDirLockFile) continue;
    WarnIfStillServed(entry.path().string());
    std::error_code rm;
    // remove_all does not follow symbolic links.
    std::filesystem::remove_all(entry.path(), rm);
    if (rm) {
      return absl::InternalError(absl::StrCat(
          "cannot remove stale ", entry.path().string(), ": ", Describe(rm)));
    }
    ++stale;
  }
  if (ec) {
    return absl::InternalError(
        absl::StrCat("cannot list ", d->path_, ": ", Describe(ec)));
  }
  if (!previous.empty() || stale > 0) {
    FP_LOG_WARNING(absl::StrCat(
        "run folder ", d->path_, ": the previous agent",
        previous.empty() ? "" : absl::StrCat(" (pid ", previous, ")"),
        " did not exit cleanly; removed ", stale, " stale entr",
        stale == 1 ? "y" : "ies"));
  }
  const std::string pid = absl::StrCat(getpid(), "\n");
  if (ftruncate(fd, 0) != 0 || pwrite(fd, pid.data(), pid.size(), 0) !=
                                   static_cast<ssize_t>(pid.size())) {
    return absl::InternalError(absl::StrCat(
        "cannot write ", d->Entry(kRunDirLockFile), ": ", strerror(errno)));
  }
  return d;
}

absl::Status RunDir::Lock(const std::string& uid_dir,
                          const std::string& node_name) {
  const std::string lock_path = Entry(kRunDirLockFile);
  const uid_t uid = geteuid();
  absl::Status last;
  for (int attempt = 0; attempt < kLockAttempts; ++attempt) {
    for (const std::string& dir : {uid_dir, path_}) {
      last = common::EnsurePrivateDirectory(dir, uid);
      if (!last.ok()) break;
    }
    if (absl::IsNotFound(last)) continue;  // removed under us: again
    if (!last.ok()) return last;
    common::UniqueFd fd(open(lock_path.c_str(),
                             O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600));
    if (!fd.valid()) {
      if (errno == ENOENT) continue;
      return absl::InternalError(
          absl::StrCat("cannot open ", lock_path, ": ", strerror(errno)));
    }
    struct stat opened;
    if (fstat(fd.get(), &opened) != 0 || !S_ISREG(opened.st_mode) ||
        opened.st_uid != uid || fchmod(fd.get(), 0600) != 0) {
      return absl::FailedPreconditionError(
          absl::StrCat(lock_path, " is not a regular file owned by uid ", uid,
                       "; refusing it (remove it)"));
    }
    if (flock(fd.get(), LOCK_EX | LOCK_NB) != 0) {
      if (errno != EWOULDBLOCK) {
        return absl::InternalError(
            absl::StrCat("cannot lock ", lock_path, ": ", strerror(errno)));
      }
      const std::string holder = HolderPid(fd.get());
      return absl::FailedPreconditionError(absl::StrCat(
          "another fabricpulse-agent",
          holder.empty() ? "" : absl::StrCat(" (pid ", holder, ")"),
          " already runs node ", Quote(node_name), " from this run folder (",
          lock_path,
          " is locked); stop it, or give this agent another --node-name or "
          "--run-dir"));
    }
    // A predecessor exiting cleanly unlinks the lock file before it lets
    // go; a lock on an unlinked file guards nothing, so take it again.
    struct stat linked;
    if (stat(lock_path.c_str(), &linked) != 0 ||
        linked.st_dev != opened.st_dev || linked.st_ino != opened.st_ino) {
      continue;
    }
    absl::MutexLock lock(&mu_);
    lock_ = std::move(fd);
    return absl::OkStatus();
  }
  return last.ok()
             ? absl::InternalError(absl::StrCat("cannot lock ", lock_path,
                                                ": it kept being removed "
                                                "while trying (",
                                                kLockAttempts, " attempts)"))
             : last;
}

void RunDir::Remove() {
  absl::MutexLock lock(&mu_);
  if (!lock_.valid() || path_.empty()) return;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(path_, ec)) {
    if (entry.path().filename() == kRunDirLockFile) continue;
    std::error_code rm;
    std::filesystem::remove_all(entry.path(), rm);
  }
  // Unlinked while still held: a newcomer that opened it meanwhile sees it
  // is no longer linked and starts over (Lock).
  unlink(Entry(kRunDirLockFile).c_str());
  if (rmdir(path_.c_str()) != 0) {
    FP_LOG_WARNING(absl::StrCat("cannot remove run folder ", path_, ": ",
                                strerror(errno)));
  }
  lock_.reset();
  // Fails, as it should, while another agent of this uid has its folder.
  rmdir(uid_dir_.c_str());
}

RunDir::~RunDir() { Remove(); }

}  // namespace fabricpulse::agent
