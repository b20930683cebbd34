#include "daemon/common/shutdown_signal.h"

#include <signal.h>

namespace fabricpulse::common {
namespace {

sigset_t ShutdownSet() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  return set;
}

}  // namespace

void BlockShutdownSignals() {
  sigset_t set = ShutdownSet();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  // A peer that vanishes mid-write must not kill the daemon.
  signal(SIGPIPE, SIG_IGN);
}

int WaitForShutdownSignal() {
  sigset_t set = ShutdownSet();
  int sig = 0;
  sigwait(&set, &sig);
  return sig;
}

}  // namespace fabricpulse::common
