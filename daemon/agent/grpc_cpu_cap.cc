// The agent talks to one coordinator and its node's few workers, but
// gRPC 1.51 sizes its thread pools from the machine's CPU count
// (gpr_cpu_num_cores(), sysconf(_SC_NPROCESSORS_CONF)): on a 16-core GPU
// node its callback queue ran 16 "nexting" threads, each waking 2-3 times a
// second while idle (0.12 % of a core together, measured on one H200 node
// with tests/perf/idle_cpu.sh). Linked into fabricpulse-agent only, this
// sysconf() is the one the agent's shared libraries (libgpr among them)
// resolve to: CPU counts are capped at kAgentCpus, everything else comes
// from the C library's sysconf. The CLI does the same by link-time
// wrapping (client/grpc_cpu_cap.cc); the coordinator, which serves every
// agent, keeps gRPC's own sizing, and the worker never links this (NCCL
// and CUDA size their own threads from the CPU count).
#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>

namespace {

// The unit test builds this file with a cap of 1, to see it take effect on
// machines of 2 CPUs too.
#ifndef FABRICPULSE_AGENT_CPUS
#define FABRICPULSE_AGENT_CPUS 2
#endif
constexpr long kAgentCpus = FABRICPULSE_AGENT_CPUS;

using SysconfFn = long (*)(int);

SysconfFn RealSysconf() {
  static const SysconfFn real =
      reinterpret_cast<SysconfFn>(dlsym(RTLD_NEXT, "sysconf"));
  return real;
}

}  // namespace

extern "C" long sysconf(int name) {  // NOLINT: interposes the C library's
  const SysconfFn real = RealSysconf();
  const long value = real != nullptr ? real(name) : -1;
  if (name == _SC_NPROCESSORS_CONF || name == _SC_NPROCESSORS_ONLN) {
    return value < 1 ? value : std::min(value, kAgentCpus);
  }
  return value;
}
