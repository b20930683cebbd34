#include "client/cli/local_signal_guard.h"

#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <cstdio>
#include <thread>

#include "absl/synchronization/mutex.h"

namespace fabricpulse::client {

struct LocalSignalGuard::State {
  absl::Mutex mu;
  std::function<void(std::FILE*)> cleanup ABSL_GUARDED_BY(mu);
};

namespace {

// SIGPIPE, passed on by the handler to the signal thread.
constexpr int kPipeRelay = SIGUSR2;

sigset_t WatchedSet() {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : {SIGINT, SIGTERM, SIGHUP, kPipeRelay}) sigaddset(&set, sig);
  return set;
}

// Runs on the thread whose write() hit a closed pipe. Only
// async-signal-safe calls: kill, pause.
void OnSigpipe(int) {
  kill(getpid(), kPipeRelay);
  while (true) pause();
}

void SignalLoop(std::shared_ptr<LocalSignalGuard::State> state) {
  // A closed stderr must not park this thread in OnSigpipe.
  sigset_t pipe;
  sigemptyset(&pipe);
  sigaddset(&pipe, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe, nullptr);
  const sigset_t set = WatchedSet();
  int sig = 0;
  while (sigwait(&set, &sig) != 0) {
  }
  const int reported = sig == kPipeRelay ? SIGPIPE : sig;
  // Held until the process ends: SetCleanup then waits instead of letting
  // the cleanup's objects go.
  state->mu.Lock();
  if (reported != SIGPIPE) {
    std::fprintf(stderr, "fabricpulse: local: %s; stopping the local cluster\n",
                 strsignal(reported));
    std::fflush(stderr);
  }
  std::FILE* err = fdopen(dup(STDERR_FILENO), "w");
  const int devnull = open("/dev/null", O_WRONLY);
  if (devnull >= 0) {
    dup2(devnull, STDOUT_FILENO);
    dup2(devnull, STDERR_FILENO);
  }
  if (state->cleanup) state->cleanup(err != nullptr ? err : stderr);
  if (err != nullptr) std::fflush(err);
  _exit(128 + reported);
}

}  // namespace

LocalSignalGuard::LocalSignalGuard() : state_(std::make_shared<State>()) {
  const sigset_t set = WatchedSet();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  struct sigaction action;
  memset(&action, 0, sizeof(action));
  action.sa_handler = OnSigpipe;
  sigemptyset(&action.sa_mask);
  sigaction(SIGPIPE, &action, nullptr);
  std::thread(SignalLoop, state_).detach();
}

void LocalSignalGuard::SetCleanup(std::function<void(std::FILE* err)> cleanup) {
  absl::MutexLock lock(&state_->mu);
  state_->cleanup = std::move(cleanup);
}

}  // namespace fabricpulse::client
