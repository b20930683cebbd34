// The bare cost of one NCCL rank, for tests/perf/idle_cost.sh to put next
// to FabricPulse's: a CUDA context, then (mode `comm`) a blocking
// ncclCommInitRank over one rank, as FabricPulse's worker builds it.
//
//   bare_nccl_init context|comm [GPU]
//
// stdout, one line each, then the process holds what it made until it is
// sent SIGTERM or SIGINT (so that nvidia-smi can read its GPU memory):
//   context_s <seconds for cudaSetDevice + cudaFree(0)>
//   init_s <seconds for ncclGetUniqueId + ncclCommInitRank>   (mode comm)
//   holding
// Exit status: 0 after a signal; 1 a CUDA or NCCL error (on stderr); 2 bad
// arguments.
#include <cuda_runtime.h>
#include <nccl.h>
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || (std::strcmp(argv[1], "context") != 0 &&
                   std::strcmp(argv[1], "comm") != 0)) {
    std::fprintf(stderr, "usage: bare_nccl_init context|comm [GPU]\n");
    return 2;
  }
  const bool comm_mode = std::strcmp(argv[1], "comm") == 0;
  const int gpu = argc > 2 ? std::atoi(argv[2]) : 0;
  sigset_t wait_for;
  sigemptyset(&wait_for);
  sigaddset(&wait_for, SIGTERM);
  sigaddset(&wait_for, SIGINT);
  sigprocmask(SIG_BLOCK, &wait_for, nullptr);

  auto start = std::chrono::steady_clock::now();
  cudaError_t c = cudaSetDevice(gpu);
  if (c == cudaSuccess) c = cudaFree(nullptr);
  if (c != cudaSuccess) {
    std::fprintf(stderr, "CUDA: %s\n", cudaGetErrorString(c));
    return 1;
  }
  std::printf("context_s %.6f\n", SecondsSince(start));
  ncclComm_t comm = nullptr;
  if (comm_mode) {
    start = std::chrono::steady_clock::now();
    ncclUniqueId id;
    ncclResult_t r = ncclGetUniqueId(&id);
    if (r == ncclSuccess) r = ncclCommInitRank(&comm, 1, id, 0);
    if (r != ncclSuccess) {
      std::fprintf(stderr, "NCCL: %s\n", ncclGetErrorString(r));
      return 1;
    }
    std::printf("init_s %.6f\n", SecondsSince(start));
  }
  std::printf("holding\n");
  std::fflush(stdout);
  int sig = 0;
  sigwait(&wait_for, &sig);
  if (comm != nullptr) ncclCommDestroy(comm);
  return 0;
}
