// Ordered shutdown from a signal thread: main blocks SIGINT/SIGTERM before
// starting threads, then waits here.
#pragma once

namespace fabricpulse::common {

// Blocks SIGINT, SIGTERM and SIGHUP in the calling thread (and the threads
// it starts later). Call first thing in main.
void BlockShutdownSignals();

// Waits for one of the blocked signals; returns its number.
int WaitForShutdownSignal();

}  // namespace fabricpulse::common
