// Child processes: spawn, signal, bounded waits.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace fabricpulse::common {

struct SpawnOptions {
  std::vector<std::string> argv;  // argv[0] is the executable path
  // Extra "NAME=value" entries added to (or replacing in) the environment.
  std::vector<std::string> env;
  // When non-empty, the child's stdout and stderr append to this file.
  std::string log_file;
  // Otherwise, when >= 0, the child's stdout and stderr go to this
  // descriptor (the caller still owns and closes it).
  int output_fd = -1;
  // The child gets SIGTERM when the spawning thread's process dies, so no
  // orphan outlives its parent.
  bool die_with_parent = true;
};

// Errors: INTERNAL fork failed; NOT_FOUND the executable is missing.
absl::StatusOr<pid_t> Spawn(const SpawnOptions& options);

// Exit information of a reaped child.
struct ExitInfo {
  int exit_code = -1;  // when exited normally
  int signal = 0;      // when killed by a signal
  std::string Describe() const;
};

// Decodes a waitpid() status.
ExitInfo ExitInfoFromWaitStatus(int status);

// Waits up to `timeout` for `pid` to exit and reaps it; nullopt on timeout.
std::optional<ExitInfo> WaitForExit(pid_t pid, absl::Duration timeout);

// SIGTERM, then SIGKILL after `grace`; always reaps. Idempotent for an
// already-reaped pid (returns nullopt).
std::optional<ExitInfo> TerminateProcess(pid_t pid, absl::Duration grace);

// What a command run to completion wrote, and how it ended.
struct CommandResult {
  ExitInfo exit;
  // Its stdout and stderr as they came, cut at 64 KiB.
  std::string output;
};

// Runs `argv` (argv[0] is the executable path; stdin is /dev/null) and
// waits for it to exit, up to `timeout`. Errors: as Spawn; INTERNAL no pipe;
// DEADLINE_EXCEEDED it ran longer (it is then killed and reaped).
absl::StatusOr<CommandResult> RunCommand(const std::vector<std::string>& argv,
                                         absl::Duration timeout);

// Directory of the running executable (/proc/self/exe's folder).
std::string ExecutableDir();

}  // namespace fabricpulse::common
