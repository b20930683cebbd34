// Signals during `fabricpulse local`: SIGINT, SIGTERM and SIGHUP (Ctrl-C,
// a kill, a closed terminal) and SIGPIPE (`fabricpulse local sweep | head`)
// run a cleanup, which stops the local daemons and removes their temporary
// folder, and then end the process with exit code 128 + the signal's number
// (130, 143, 129, 141), as a shell reports a process killed by it. One line
// on stderr for SIGINT, SIGTERM and SIGHUP; none for SIGPIPE (the reader
// has gone on purpose). Then stdout and stderr are pointed at /dev/null, so
// that what the interrupted command still prints as its cluster goes (an
// unreachable agent, a failed sweep) is not taken for the outcome; the
// cleanup writes to the stream it is given, the original stderr.
//
// The three are blocked in every thread and taken by one signal thread
// (sigwait). SIGPIPE cannot be: the kernel sends it to the thread whose
// write failed, so its handler (async-signal-safe) sends SIGUSR2 to the
// process for the signal thread, then parks the writing thread, which would
// otherwise print on into a closed pipe, until the process ends. SIGUSR2
// from outside is taken as SIGPIPE.
#pragma once

#include <cstdio>
#include <functional>
#include <memory>

namespace fabricpulse::client {

// One per process. Construct it before any thread starts: threads inherit
// the blocked mask. The signal thread outlives it (it ends with the
// process). Thread-safe.
class LocalSignalGuard {
 public:
  LocalSignalGuard();
  ~LocalSignalGuard() = default;
  LocalSignalGuard(const LocalSignalGuard&) = delete;
  LocalSignalGuard& operator=(const LocalSignalGuard&) = delete;

  // Sets what a signal runs, on the signal thread, before the process
  // exits; replaces the previous cleanup; empty: none. Waits while a
  // cleanup runs (then the process is about to end): after it returns, the
  // previous cleanup never runs again, so what it uses may be destroyed.
  void SetCleanup(std::function<void(std::FILE* err)> cleanup);

  struct State;

 private:
  std::shared_ptr<State> state_;
};

}  // namespace fabricpulse::client
