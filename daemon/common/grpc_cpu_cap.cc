// Linked into fabricpulse-agent and fabricpulse-coordinator only (see
// grpc_cpu_cap.h), and exported from them (-Wl,--export-dynamic-symbol=
// sysconf), this sysconf() is the one their shared libraries (libgpr among
// them) resolve to: CPU counts are capped, everything else comes from the C
// library's sysconf. Measured on a 16-CPU H200 node: 16 idle nexting
// threads in the agent (0.12 % of a core together) became 2, 55 -> 35
// threads. The CLI does the same by link-time wrapping
// (client/grpc_cpu_cap.cc).
#include "daemon/common/grpc_cpu_cap.h"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>

#include "absl/strings/str_cat.h"

// Each binary builds this file with its own cap (CMake); the unit test
// builds it with a cap of 1, to see it take effect on 2-CPU machines too.
#ifndef FABRICPULSE_GRPC_CPUS_DEFAULT
#error "FABRICPULSE_GRPC_CPUS_DEFAULT must be defined by the build"
#endif

namespace fabricpulse::common {
namespace {

constexpr long kBuiltInCap = FABRICPULSE_GRPC_CPUS_DEFAULT;
static_assert(kBuiltInCap >= 1 && kBuiltInCap <= kMaxGrpcCpus);

// FABRICPULSE_GRPC_CPUS as a count, or 0 when unset, empty or not 1..1024. No
// allocation: sysconf can be asked from anywhere.
long EnvCap(const char** text) {
  const char* value = std::getenv(kGrpcCpusEnv);
  if (text != nullptr) *text = value;
  if (value == nullptr || *value == '\0') return 0;
  char* end = nullptr;
  errno = 0;
  const long n = std::strtol(value, &end, 10);
  if (errno != 0 || *end != '\0' || n < 1 || n > kMaxGrpcCpus) return 0;
  return n;
}

using SysconfFn = long (*)(int);

SysconfFn RealSysconf() {
  static const SysconfFn real =
      reinterpret_cast<SysconfFn>(dlsym(RTLD_NEXT, "sysconf"));
  return real;
}

}  // namespace

long GrpcCpuCap() {
  const long env = EnvCap(nullptr);
  return env > 0 ? env : kBuiltInCap;
}

std::string GrpcCpusEnvError() {
  const char* text = nullptr;
  if (EnvCap(&text) > 0 || text == nullptr || *text == '\0') return "";
  return absl::StrCat(kGrpcCpusEnv, ": '", text,
                      "' is not a CPU count; allowed: 1 to ", kMaxGrpcCpus);
}

}  // namespace fabricpulse::common

extern "C" long sysconf(int name) {  // NOLINT: interposes the C library's
  const auto real = fabricpulse::common::RealSysconf();
  const long value = real != nullptr ? real(name) : -1;
  if (name == _SC_NPROCESSORS_CONF || name == _SC_NPROCESSORS_ONLN) {
    const int saved = errno;  // getenv/strtol must not change what callers see
    const long cap = fabricpulse::common::GrpcCpuCap();
    errno = saved;
    return value < 1 ? value : std::min(value, cap);
  }
  return value;
}
