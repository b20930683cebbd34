#include "daemon/common/process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

extern char** environ;

namespace fabricpulse::common {
namespace {

std::vector<std::string> MergedEnvironment(
    const std::vector<std::string>& extra) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string entry(*e);
    std::string name = entry.substr(0, entry.find('='));
    bool replaced = false;
    for (const std::string& x : extra) {
      if (x.substr(0, x.find('=')) == name) replaced = true;
    }
    if (!replaced) env.push_back(entry);
  }
  env.insert(env.end(), extra.begin(), extra.end());
  return env;
}

}  // namespace

ExitInfo ExitInfoFromWaitStatus(int status) {
  ExitInfo info;
  if (WIFEXITED(status)) info.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) info.signal = WTERMSIG(status);
  return info;
}

std::string ExitInfo::Describe() const {
  if (signal != 0) return absl::StrCat("killed by signal ", signal);
  return absl::StrCat("exited with code ", exit_code);
}

absl::StatusOr<pid_t> Spawn(const SpawnOptions& options) {
  if (options.argv.empty() || access(options.argv[0].c_str(), X_OK) != 0) {
    return absl::NotFoundError(absl::StrCat(
        "cannot execute '", options.argv.empty() ? "" : options.argv[0],
        "': ", std::strerror(errno)));
  }
  // Everything the child needs is prepared before fork: after fork only
  // async-signal-safe calls are allowed.
  std::vector<std::string> env = MergedEnvironment(options.env);
  std::vector<char*> argv_ptrs;
  for (const std::string& a : options.argv) {
    argv_ptrs.push_back(const_cast<char*>(a.c_str()));
  }
  argv_ptrs.push_back(nullptr);
  std::vector<char*> env_ptrs;
  for (const std::string& e : env) {
    env_ptrs.push_back(const_cast<char*>(e.c_str()));
  }
  env_ptrs.push_back(nullptr);
  int log_fd = -1;
  if (!options.log_file.empty()) {
    log_fd = open(options.log_file.c_str(),
                  O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  }
  const int output_fd = log_fd >= 0 ? log_fd : options.output_fd;
  const pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    if (log_fd >= 0) close(log_fd);
    return absl::InternalError(
        absl::StrCat("fork failed: ", std::strerror(errno)));
  }
  if (pid == 0) {
    if (options.die_with_parent) {
      prctl(PR_SET_PDEATHSIG, SIGTERM);
      if (getppid() != parent) _exit(127);
    }
    // The parent may block signals for its sigwait thread; the child must
    // not inherit that.
    sigset_t all;
    sigfillset(&all);
    sigprocmask(SIG_UNBLOCK, &all, nullptr);
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, STDIN_FILENO);
    if (output_fd >= 0) {
      dup2(output_fd, STDOUT_FILENO);
      dup2(output_fd, STDERR_FILENO);
    }
    execve(argv_ptrs[0], argv_ptrs.data(), env_ptrs.data());
    _exit(127);
  }
  if (log_fd >= 0) close(log_fd);
  return pid;
}

std::optional<ExitInfo> WaitForExit(pid_t pid, absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  absl::Duration backoff = absl::Microseconds(200);
  while (true) {
    int status = 0;
    pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) return ExitInfoFromWaitStatus(status);
    if (r < 0) return std::nullopt;  // not our child or already reaped
    if (absl::Now() >= deadline) return std::nullopt;
    // Polling with a capped backoff: waitpid has no timed variant.
    std::this_thread::sleep_for(absl::ToChronoMicroseconds(backoff));
    backoff = std::min(backoff * 2, absl::Milliseconds(20));
  }
}

std::optional<ExitInfo> TerminateProcess(pid_t pid, absl::Duration grace) {
  if (pid <= 0) return std::nullopt;
  if (kill(pid, SIGTERM) != 0 && errno == ESRCH) {
    return WaitForExit(pid, absl::ZeroDuration());
  }
  // A stopped process cannot act on SIGTERM until continued.
  kill(pid, SIGCONT);
  if (auto info = WaitForExit(pid, grace)) return info;
  kill(pid, SIGKILL);
  return WaitForExit(pid, absl::Seconds(10));
}

absl::StatusOr<CommandResult> RunCommand(const std::vector<std::string>& argv,
                                         absl::Duration timeout) {
  constexpr size_t kMaxOutput = 64 * 1024;
  const absl::Time deadline = absl::Now() + timeout;
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    return absl::InternalError(
        absl::StrCat("pipe failed: ", std::strerror(errno)));
  }
  SpawnOptions spawn;
  spawn.argv = argv;
  spawn.output_fd = fds[1];
  absl::StatusOr<pid_t> pid = Spawn(spawn);
  close(fds[1]);  // the child holds the only write end: EOF when it exits
  if (!pid.ok()) {
    close(fds[0]);
    return pid.status();
  }
  CommandResult result;
  bool timed_out = false;
  char buf[4096];
  while (true) {
    const absl::Duration left = deadline - absl::Now();
    if (left <= absl::ZeroDuration()) {
      timed_out = true;
      break;
    }
    pollfd readable = {fds[0], POLLIN, 0};
    const int ready = poll(&readable, 1,
                           static_cast<int>(absl::ToInt64Milliseconds(
                               absl::Ceil(left, absl::Milliseconds(1)))));
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) continue;
    const ssize_t n = read(fds[0], buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // EOF (or a read error): the child is done writing
    result.output.append(
        buf, std::min(static_cast<size_t>(n),
                      kMaxOutput - std::min(kMaxOutput, result.output.size())));
  }
  close(fds[0]);
  if (!timed_out) {
    std::optional<ExitInfo> exit = WaitForExit(
        *pid, std::max(deadline - absl::Now(), absl::ZeroDuration()));
    if (exit.has_value()) {
      result.exit = *exit;
      return result;
    }
  }
  TerminateProcess(*pid, absl::Seconds(1));
  return absl::DeadlineExceededError(
      absl::StrCat("did not finish within ", absl::FormatDuration(timeout)));
}

std::string ExecutableDir() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) return ".";
  std::string path(buf, n);
  return path.substr(0, path.rfind('/'));
}

}  // namespace fabricpulse::common
