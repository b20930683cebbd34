// Shutdown signals, handled from the first line of a daemon's main to its
// last: SIGINT, SIGTERM and SIGHUP are blocked in every thread and taken by
// one signal thread (sigwait), so no signal handler ever runs.
//
//   int main(int argc, char** argv) {
//     common::ShutdownSignals signals("fabricpulse-agent");  // first line
//     ... parse flags, start (may block: a lock, a slow file system) ...
//     const int sig = signals.WaitForShutdown();  // startup is over
//     server->Shutdown(...);                      // the ordered shutdown
//   }
//
// During startup (until WaitForShutdown is called) a signal ends the
// process at once, whatever startup is blocked in, with one line on stderr,
// "<program>: <signal> during startup; exiting", and exit code 128 + the
// signal's number (as a shell reports a process killed by it: SIGTERM 143,
// SIGINT 130). Children spawned with common::Spawn unblock every signal
// and, by default, get SIGTERM when this process dies.
// After startup the first signal returns from WaitForShutdown; a second one
// during the ordered shutdown, at least 1 s after the first, ends the
// process at once the same way ("... during shutdown; exiting", 128 +
// number). Signals within that second are taken as the same request: a
// worker whose agent dies gets its SIGTERM (PR_SET_PDEATHSIG) once for each
// of the agent's threads it is handed to as they exit.
//
// SIGPIPE is ignored (a peer that vanishes mid-write must not kill the
// daemon).
#pragma once

#include <memory>
#include <string>

namespace fabricpulse::common {

// One per process. Construct it first in main, before any thread starts:
// threads inherit the blocked mask. Thread-safe.
class ShutdownSignals {
 public:
  // `program` names the process in the startup/shutdown lines.
  explicit ShutdownSignals(std::string program);
  // The signal thread is left running (it ends with the process).
  ~ShutdownSignals() = default;
  ShutdownSignals(const ShutdownSignals&) = delete;
  ShutdownSignals& operator=(const ShutdownSignals&) = delete;

  // Marks startup done and waits for a signal; returns its number. A
  // signal that came during startup has already ended the process.
  int WaitForShutdown();

  struct State;

 private:
  std::shared_ptr<State> state_;
};

}  // namespace fabricpulse::common
