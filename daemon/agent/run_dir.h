// The agent's private run folder, where its workers' sockets live. Its
// path is a function of the run base, the uid and the node name, so an
// agent restarted after SIGKILL finds what its predecessor left and
// removes it:
//
//   <base>/                      --run-dir (default $XDG_RUNTIME_DIR, else
//                                /tmp); must exist
//     fabricpulse-agent-<uid>/   0700, this uid's agents (removed when the
//                                last one exits cleanly)
//       <node>/                  0700, one agent's (NodeDirName)
//         agent.lock             0600, flock'ed while the agent lives; holds
//                                its pid
//         worker-<i>.<boot>.sock 0600, one per worker (WorkerSupervisor)
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "daemon/common/unique_fd.h"

namespace fabricpulse::agent {

// The lock file's name inside the node folder.
inline constexpr char kRunDirLockFile[] = "agent.lock";
// Node folder names are at most this long (NodeDirName).
inline constexpr size_t kMaxNodeDirName = 40;

struct RunDirOptions {
  std::string base;  // --run-dir; empty: DefaultRunDirBase()
  std::string node_name;
  // The longest file name the agent will create in the node folder: its
  // whole path must fit a Unix socket address (107 bytes).
  std::string longest_entry;
};

// $XDG_RUNTIME_DIR when it is set to an absolute path, else /tmp.
std::string DefaultRunDirBase();

// The node folder's name for `node_name`: the name itself when it is 1 to
// kMaxNodeDirName characters of [A-Za-z0-9._-] not starting with '.';
// otherwise its first 23 characters with any other character (and a
// leading '.') replaced by '_', then '-' and 16 hex digits of its FNV-1a
// 64-bit hash. Deterministic; never "", "." or "..", never contains '/'.
std::string NodeDirName(absl::string_view node_name);

// Owns the node folder while the agent lives. Thread-safe.
class RunDir {
 public:
  // Creates the folders (0700) unless they exist, refuses any that is a
  // symbolic link, not a folder, owned by another uid or open to
  // group/others, takes the lock (at once or not at all), removes what a
  // killed predecessor left (everything but the lock file) and writes this
  // process's pid into the lock file. Logs a warning when `base` is
  // writable by others without the sticky bit. Errors: INVALID_ARGUMENT
  // "--run-dir: ..." the base is not an absolute path of an existing
  // folder, or the socket paths would not fit a Unix socket address;
  // FAILED_PRECONDITION a folder is refused as above, or another live agent
  // holds the lock (naming the lock file and that agent's pid); INTERNAL a
  // filesystem call failed (naming the path and why).
  static absl::StatusOr<std::unique_ptr<RunDir>> Acquire(
      const RunDirOptions& options);
  ~RunDir();  // Remove()

  // The node folder.
  const std::string& path() const { return path_; }
  // `name` inside the node folder.
  std::string Entry(absl::string_view name) const;

  // Removes everything in the node folder, the folder itself and, when no
  // other agent's folder is left, the per-uid folder; then releases the
  // lock. Call after the workers have stopped. Idempotent.
  void Remove();

 private:
  RunDir() = default;
  // Takes the lock on a lock file that is still linked at its path, making
  // the folders first. Errors: as Acquire.
  absl::Status Lock(const std::string& uid_dir, const std::string& node_name);

  std::string path_;
  std::string uid_dir_;
  absl::Mutex mu_;
  common::UniqueFd lock_ ABSL_GUARDED_BY(mu_);
};

}  // namespace fabricpulse::agent
