// How many CPUs gRPC sees inside a daemon (daemon/common/grpc_cpu_cap.cc).
//
// gRPC 1.51 sizes its idle thread pools from the machine's CPU count
// (gpr_cpu_num_cores(), that is sysconf(_SC_NPROCESSORS_CONF)): its callback
// queue keeps one "nexting" thread per two CPUs, each waking 2-3 times a
// second while idle. A daemon linked with grpc_cpu_cap.cc answers those
// sysconf queries itself: the agent shows gRPC at most 2 CPUs, the
// coordinator at most 4, unless FABRICPULSE_GRPC_CPUS (1 to 1024) says
// otherwise. The worker never links it: NCCL and CUDA size their own
// threads from the CPU count.
#ifndef FABRICPULSE_DAEMON_COMMON_GRPC_CPU_CAP_H_
#define FABRICPULSE_DAEMON_COMMON_GRPC_CPU_CAP_H_

#include <string>

namespace fabricpulse::common {

inline constexpr char kGrpcCpusEnv[] = "FABRICPULSE_GRPC_CPUS";
inline constexpr long kMaxGrpcCpus = 1024;

// The cap in force: FABRICPULSE_GRPC_CPUS when it is set and valid, else
// the daemon's built-in cap.
long GrpcCpuCap();

// Empty when FABRICPULSE_GRPC_CPUS is unset or a count from 1 to 1024;
// else the error to print before exiting 2 (the daemons check it before
// gRPC starts; until then an invalid value counts as unset).
std::string GrpcCpusEnvError();

}  // namespace fabricpulse::common

#endif  // FABRICPULSE_DAEMON_COMMON_GRPC_CPU_CAP_H_
