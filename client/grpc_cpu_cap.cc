// The CLI runs one or two RPCs and exits, but gRPC sizes its thread pool
// from the machine's CPU count (sysconf(_SC_NPROCESSORS_CONF), up to 32
// threads), and starting and joining them costs the CLI milliseconds per
// command on a many-core host (measured: `fabricpulse agents` 6.3 ms when
// gRPC sees 2 CPUs, 13 ms when it sees 32). Linked with
// -Wl,--wrap=sysconf (statically linked CLI only; see client/CMakeLists.txt),
// every sysconf() call in the CLI comes here: CPU counts are capped at 2,
// everything else is answered by the C library.
#include <unistd.h>

#include <algorithm>

extern "C" long __real_sysconf(int name);  // NOLINT: linker-provided

extern "C" long __wrap_sysconf(int name) {  // NOLINT: linker-provided
  const long value = __real_sysconf(name);
  if (name == _SC_NPROCESSORS_CONF || name == _SC_NPROCESSORS_ONLN) {
    return value < 1 ? value : std::min(value, 2L);
  }
  return value;
}
