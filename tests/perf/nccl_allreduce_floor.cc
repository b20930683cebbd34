// C-level NCCL reference for small-message latency, the way training jobs
// run: one process per visible GPU (forked here, unique id passed through
// pipes), 8-byte float all_reduce, `iters` ops between two CUDA events after
// warm-ups, plain and as one CUDA-graph replay. Prints
// "floor plain <us per op>" and "floor graph <us per op>" (slowest rank).
#include <cuda_runtime.h>
#include <nccl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(x)                                                          \
  do {                                                                    \
    if (!(x)) {                                                           \
      std::fprintf(stderr, "%s:%d: %s failed\n", __FILE__, __LINE__, #x); \
      std::_Exit(1);                                                      \
    }                                                                     \
  } while (0)

namespace {

struct Result {
  float plain_us;
  float graph_us;
};

Result RunRank(int rank, int n, const ncclUniqueId& id, int iters) {
  CHECK(cudaSetDevice(rank) == cudaSuccess);
  ncclComm_t comm;
  CHECK(ncclCommInitRank(&comm, n, id, rank) == ncclSuccess);
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) == 0);
  float* buf = nullptr;
  CHECK(cudaMalloc(&buf, 8) == cudaSuccess);
  CHECK(cudaMemset(buf, 0, 8) == cudaSuccess);
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start) == 0 && cudaEventCreate(&stop) == 0);
  auto enqueue = [&](int count) {
    for (int k = 0; k < count; ++k) {
      CHECK(ncclAllReduce(buf, buf, 2, ncclFloat, ncclSum, comm, stream) ==
            ncclSuccess);
    }
  };
  auto time_us = [&](auto&& body) {
    CHECK(cudaEventRecord(start, stream) == 0);
    body();
    CHECK(cudaEventRecord(stop, stream) == 0);
    CHECK(cudaEventSynchronize(stop) == 0);
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, stop) == 0);
    return ms * 1e3f / iters;
  };
  enqueue(100);
  Result r;
  r.plain_us = time_us([&] { enqueue(iters); });
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal) == 0);
  enqueue(iters);
  CHECK(cudaStreamEndCapture(stream, &graph) == 0);
  CHECK(cudaGraphInstantiate(&exec, graph, 0) == 0);
  CHECK(cudaGraphLaunch(exec, stream) == 0);  // warm-up replay
  r.graph_us = time_us([&] { CHECK(cudaGraphLaunch(exec, stream) == 0); });
  CHECK(cudaStreamSynchronize(stream) == 0);
  ncclCommDestroy(comm);
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  const int iters = argc > 1 ? std::atoi(argv[1]) : 1000;
  int n = 0;
  // Count GPUs in a child: the parent must not create a CUDA context
  // before forking.
  int count_pipe[2];
  CHECK(pipe(count_pipe) == 0);
  if (fork() == 0) {
    int c = 0;
    if (cudaGetDeviceCount(&c) != cudaSuccess) c = 0;
    CHECK(write(count_pipe[1], &c, sizeof(c)) == sizeof(c));
    std::_Exit(0);
  }
  CHECK(read(count_pipe[0], &n, sizeof(n)) == sizeof(n));
  wait(nullptr);
  CHECK(n > 0);

  std::vector<int> id_pipes(2 * n), result_pipes(2 * n);
  for (int r = 0; r < n; ++r) {
    CHECK(pipe(&id_pipes[2 * r]) == 0 && pipe(&result_pipes[2 * r]) == 0);
  }
  int id_up[2];  // rank 0 -> parent
  CHECK(pipe(id_up) == 0);
  for (int r = 0; r < n; ++r) {
    if (fork() != 0) continue;
    ncclUniqueId id;
    if (r == 0) {
      CHECK(ncclGetUniqueId(&id) == ncclSuccess);
      CHECK(write(id_up[1], &id, sizeof(id)) == sizeof(id));
    } else {
      CHECK(read(id_pipes[2 * r], &id, sizeof(id)) == sizeof(id));
    }
    Result res = RunRank(r, n, id, iters);
    CHECK(write(result_pipes[2 * r + 1], &res, sizeof(res)) == sizeof(res));
    std::_Exit(0);
  }
  ncclUniqueId id;
  CHECK(read(id_up[0], &id, sizeof(id)) == sizeof(id));
  for (int r = 1; r < n; ++r) {
    CHECK(write(id_pipes[2 * r + 1], &id, sizeof(id)) == sizeof(id));
  }
  Result worst{0, 0};
  for (int r = 0; r < n; ++r) {
    Result res;
    CHECK(read(result_pipes[2 * r], &res, sizeof(res)) == sizeof(res));
    worst.plain_us = std::max(worst.plain_us, res.plain_us);
    worst.graph_us = std::max(worst.graph_us, res.graph_us);
  }
  for (int r = 0; r < n; ++r) wait(nullptr);
  std::printf("floor plain %.2f\nfloor graph %.2f\n", worst.plain_us,
              worst.graph_us);
  return 0;
}
