#include "daemon/common/shutdown_signal.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <cstdio>
#include <thread>

#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace fabricpulse::common {

struct ShutdownSignals::State {
  std::string program;
  absl::Mutex mu;
  bool started ABSL_GUARDED_BY(mu) = false;  // WaitForShutdown was called
  int signal ABSL_GUARDED_BY(mu) = 0;        // the first after startup
  absl::Time signalled ABSL_GUARDED_BY(mu);  // when it came
};

namespace {

constexpr absl::Duration kSameRequest = absl::Seconds(1);

sigset_t ShutdownSet() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  return set;
}

// Not from a signal handler: this runs on the signal thread, so stdio is
// safe. _exit: the process is stopped where it stands (startup holds no
// state worth saving; a stuck shutdown is what the second signal ends).
[[noreturn]] void ExitNow(const std::string& program, int sig,
                          const char* when) {
  std::fprintf(stderr, "%s: %s during %s; exiting\n", program.c_str(),
               strsignal(sig), when);
  std::fflush(stderr);
  _exit(128 + sig);
}

void SignalLoop(std::shared_ptr<ShutdownSignals::State> state) {
  const sigset_t set = ShutdownSet();
  while (true) {
    int sig = 0;
    if (sigwait(&set, &sig) != 0) continue;
    absl::MutexLock lock(&state->mu);
    if (!state->started) ExitNow(state->program, sig, "startup");
    if (state->signal != 0) {
      // A repeat within the second is the same request (PDEATHSIG comes
      // once per exiting thread of the parent); a later one is an operator
      // who will not wait.
      if (absl::Now() - state->signalled < kSameRequest) continue;
      ExitNow(state->program, sig, "shutdown");
    }
    state->signal = sig;
    state->signalled = absl::Now();
  }
}

}  // namespace

ShutdownSignals::ShutdownSignals(std::string program)
    : state_(std::make_shared<State>()) {
  state_->program = std::move(program);
  const sigset_t set = ShutdownSet();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  signal(SIGPIPE, SIG_IGN);
  std::thread(SignalLoop, state_).detach();
}

int ShutdownSignals::WaitForShutdown() {
  absl::MutexLock lock(&state_->mu);
  state_->started = true;
  auto signalled = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(state_->mu) {
    return state_->signal != 0;
  };
  state_->mu.Await(absl::Condition(&signalled));
  return state_->signal;
}

}  // namespace fabricpulse::common
