// C-level NCCL reference for small-message latency, timed the way
// FabricPulse's NCCL backend times a step (and nccl-tests): an out-of-place
// float op (8-byte all_reduce by default), `warmup` ops, then `iters`
// back-to-back ops between two CUDA events; and the same `iters` ops
// captured once in a CUDA graph, one warm-up replay, one timed replay.
//
//   [FLOOR_OP=OP] [FLOOR_BYTES=N] nccl_allreduce_floor [ITERS [WARMUP [NGPUS]]]
//       (defaults: all_reduce, 8, 1000 100 all)
//
// OP and bytes as nccl-tests and FabricPulse count them: all_reduce N bytes
// in and out; all_gather N bytes out, N / ranks in from each rank;
// sendrecv N bytes to rank + 1 and from rank - 1 (to itself on one GPU).
//
// Multi-process: one forked process per GPU, like FabricPulse's workers.
// Every child is forked before any CUDA call (the parent never touches
// CUDA; even the GPU count comes from a child), the ncclUniqueId travels
// through a shared anonymous mapping, and each child posts its timings
// there before tearing down.
//
// stdout (slowest rank; parsed by tests/perf/nccl_vs_torch.sh):
//   floor plain <us per op>
//   floor graph <us per op>
// Per-rank figures and errors go to stderr. Exit status: 0 when every child
// succeeded; 1 when a child failed (the others are killed); 2 for bad
// arguments; 3 when a child hung while tearing down (its figures are
// printed); 124 when the whole run passed FLOOR_TIMEOUT_S (default 50 s).
//
// Teardown order matters: ncclCommDestroy waits until every CUDA graph that
// captured the communicator's ops is destroyed, so the graph and its exec
// are destroyed first (keeping them alive hung every child forever).
#include <cuda_runtime.h>
#include <nccl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

namespace {

constexpr int kMaxRanks = 64;
constexpr double kTeardownSeconds = 20;

// Tag of this process's messages on stderr ("rank 1", "probe", ...).
char g_tag[32] = "parent";

[[noreturn]] void Die(const char* file, int line, const char* what,
                      const char* detail) {
  std::fprintf(stderr, "nccl_allreduce_floor [%s] %s:%d: %s failed: %s\n",
               g_tag, file, line, what, detail);
  std::fflush(stderr);
  _exit(1);
}

#define CUDA_OK(x)                                         \
  do {                                                     \
    cudaError_t e_ = (x);                                  \
    if (e_ != cudaSuccess) {                               \
      Die(__FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
    }                                                      \
  } while (0)
#define NCCL_OK(x)                                         \
  do {                                                     \
    ncclResult_t r_ = (x);                                 \
    if (r_ != ncclSuccess) {                               \
      Die(__FILE__, __LINE__, #x, ncclGetErrorString(r_)); \
    }                                                      \
  } while (0)
#define CHECK(x)                                                 \
  do {                                                           \
    if (!(x)) Die(__FILE__, __LINE__, #x, std::strerror(errno)); \
  } while (0)

double Now() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

struct Timings {
  std::atomic<int> done{0};
  double plain_us = 0;
  double graph_us = 0;
};

// Lives in a MAP_SHARED anonymous mapping made before the first fork.
struct Shared {
  std::atomic<int> ngpus{-1};
  std::atomic<int> id_ready{0};
  ncclUniqueId id;
  Timings ranks[kMaxRanks];
};
static_assert(std::atomic<int>::is_always_lock_free);

enum class Op { kAllReduce, kAllGather, kSendRecv };

struct Options {
  int iters = 1000;
  int warmup = 100;
  int ngpus = 0;  // 0: all visible
  double deadline = 0;
  Op op = Op::kAllReduce;
  const char* op_name = "all_reduce";
  size_t bytes = 8;
};

// Waits for `event` without a blocking synchronize, bounded by the run's
// deadline: a hung peer must not hang this process forever.
void Wait(cudaEvent_t event, double deadline) {
  while (true) {
    cudaError_t q = cudaEventQuery(event);
    if (q == cudaSuccess) return;
    if (q != cudaErrorNotReady) {
      Die(__FILE__, __LINE__, "cudaEventQuery", cudaGetErrorString(q));
    }
    if (Now() > deadline) {
      Die(__FILE__, __LINE__, "waiting for the GPU", "past the deadline");
    }
    sched_yield();
  }
}

// One GPU of the run: its communicator, stream, buffers and events.
struct Gpu {
  int device = 0;
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;
  float* send = nullptr;
  float* recv = nullptr;
  size_t bytes = 8;  // of recv; send holds as much
  cudaEvent_t start = nullptr, stop = nullptr;
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;

  void Setup() {
    CUDA_OK(cudaSetDevice(device));
    CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CUDA_OK(cudaMalloc(&send, bytes));
    CUDA_OK(cudaMalloc(&recv, bytes));
    CUDA_OK(cudaMemset(send, 0, bytes));
    CUDA_OK(cudaMemset(recv, 0, bytes));
    CUDA_OK(cudaEventCreate(&start));
    CUDA_OK(cudaEventCreate(&stop));
    CUDA_OK(cudaDeviceSynchronize());
  }
  // One op of `o` on this rank of `n`.
  void Enqueue(const Options& o, int rank, int n) {
    const size_t count = bytes / sizeof(float);
    switch (o.op) {
      case Op::kAllReduce:
        NCCL_OK(
            ncclAllReduce(send, recv, count, ncclFloat, ncclSum, comm, stream));
        break;
      case Op::kAllGather:
        NCCL_OK(ncclAllGather(send, recv, count / n, ncclFloat, comm, stream));
        break;
      case Op::kSendRecv:
        NCCL_OK(ncclGroupStart());
        NCCL_OK(ncclSend(send, count, ncclFloat, (rank + 1) % n, comm, stream));
        NCCL_OK(
            ncclRecv(recv, count, ncclFloat, (rank + n - 1) % n, comm, stream));
        NCCL_OK(ncclGroupEnd());
        break;
    }
  }
  double ElapsedUs(int iters) {
    float ms = 0;
    CUDA_OK(cudaEventElapsedTime(&ms, start, stop));
    return ms * 1e3 / iters;
  }
  // Before any ncclCommDestroy: it waits for every graph that references
  // the communicator to be destroyed.
  void DestroyGraph() {
    CUDA_OK(cudaSetDevice(device));
    CUDA_OK(cudaStreamSynchronize(stream));
    if (exec != nullptr) CUDA_OK(cudaGraphExecDestroy(exec));
    if (graph != nullptr) CUDA_OK(cudaGraphDestroy(graph));
    exec = nullptr;
    graph = nullptr;
  }
  void Release() {
    CUDA_OK(cudaSetDevice(device));
    NCCL_OK(ncclCommDestroy(comm));
    CUDA_OK(cudaEventDestroy(start));
    CUDA_OK(cudaEventDestroy(stop));
    CUDA_OK(cudaFree(send));
    CUDA_OK(cudaFree(recv));
    CUDA_OK(cudaStreamDestroy(stream));
  }
};

// Times `enqueue_one` x iters (plain) and a graph of them over `gpus` (the
// rank's GPU), the way NcclCommunicator::TimeIterations / TimeGraph do.
// Returns the slowest GPU's figures.
template <typename EnqueueOne>
void TimeLoops(std::vector<Gpu>& gpus, const Options& o, EnqueueOne enqueue_one,
               Timings* out) {
  for (int i = 0; i < o.warmup; ++i) enqueue_one();
  for (Gpu& g : gpus) {
    CUDA_OK(cudaSetDevice(g.device));
    CUDA_OK(cudaEventRecord(g.start, g.stream));
  }
  for (int i = 0; i < o.iters; ++i) enqueue_one();
  for (Gpu& g : gpus) {
    CUDA_OK(cudaSetDevice(g.device));
    CUDA_OK(cudaEventRecord(g.stop, g.stream));
  }
  double plain = 0;
  for (Gpu& g : gpus) {
    CUDA_OK(cudaSetDevice(g.device));
    Wait(g.stop, o.deadline);
    plain = std::max(plain, g.ElapsedUs(o.iters));
  }

  // Graph: capture the timed ops once (the communicator is connected by
  // now, as capture requires), replay once to warm up, time one replay.
  for (Gpu& g : gpus) {
    CUDA_OK(cudaSetDevice(g.device));
    CUDA_OK(cudaStreamBeginCapture(g.stream, cudaStreamCaptureModeThreadLocal));
  }
  for (int i = 0; i < o.iters; ++i) enqueue_one();
  // End every capture before instantiating any graph: while a stream of
  // this thread is capturing, instantiation is not permitted.
  for (Gpu& g : gpus) {
    CUDA_OK(cudaSetDevice(g.device));
    CUDA_OK(cudaStreamEndCapture(g.stream, &g.graph));
  }
  for (Gpu& g : gpus) {
    CUDA_OK(cudaSetDevice(g.device));
    CUDA_OK(cudaGraphInstantiate(&g.exec, g.graph, 0));
  }
  for (Gpu& g : gpus) {
    CUDA_OK(cudaSetDevice(g.device));
    CUDA_OK(cudaGraphLaunch(g.exec, g.stream));  // warm-up replay
  }
  for (Gpu& g : gpus) {
    CUDA_OK(cudaSetDevice(g.device));
    CUDA_OK(cudaEventRecord(g.start, g.stream));
    CUDA_OK(cudaGraphLaunch(g.exec, g.stream));
    CUDA_OK(cudaEventRecord(g.stop, g.stream));
  }
  double graph = 0;
  for (Gpu& g : gpus) {
    CUDA_OK(cudaSetDevice(g.device));
    Wait(g.stop, o.deadline);
    graph = std::max(graph, g.ElapsedUs(o.iters));
  }
  out->plain_us = plain;
  out->graph_us = graph;
  out->done.store(1, std::memory_order_release);
}

// A forked child: dies with the parent, and never outlives the deadline.
void BecomeChild(const char* tag, pid_t parent, const Options& o) {
  std::snprintf(g_tag, sizeof(g_tag), "%s", tag);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(1);
  const double left = o.deadline - Now();
  alarm(left > 1 ? static_cast<unsigned>(left) + 1 : 1);
}

[[noreturn]] void RunRank(int rank, int n, const Options& o, Shared* shared) {
  if (rank == 0) {
    NCCL_OK(ncclGetUniqueId(&shared->id));
    shared->id_ready.store(1, std::memory_order_release);
  } else {
    while (shared->id_ready.load(std::memory_order_acquire) == 0) {
      if (Now() > o.deadline) Die(__FILE__, __LINE__, "unique id", "timeout");
      usleep(1000);
    }
  }
  std::vector<Gpu> gpus(1);
  Gpu& g = gpus[0];
  g.device = rank;
  g.bytes = o.bytes;
  CUDA_OK(cudaSetDevice(rank));
  NCCL_OK(ncclCommInitRank(&g.comm, n, shared->id, rank));
  g.Setup();
  // Posts the figures before tearing down: the parent prints them even if
  // teardown misbehaves.
  TimeLoops(
      gpus, o, [&g, &o, rank, n] { g.Enqueue(o, rank, n); },
      &shared->ranks[rank]);
  g.DestroyGraph();
  g.Release();
  _exit(0);
}

[[noreturn]] void RunProbe(Shared* shared) {
  int count = 0;
  CUDA_OK(cudaGetDeviceCount(&count));
  shared->ngpus.store(count, std::memory_order_release);
  _exit(0);
}

std::vector<pid_t> g_children;

void KillChildren() {
  for (pid_t pid : g_children) kill(pid, SIGKILL);
  for (pid_t pid : g_children) waitpid(pid, nullptr, 0);
  g_children.clear();
}

// Forks `body` into a child tagged `tag`.
template <typename Body>
pid_t Spawn(const char* tag, const Options& o, Body body) {
  const pid_t parent = getpid();
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = fork();
  CHECK(pid >= 0);
  if (pid == 0) {
    BecomeChild(tag, parent, o);
    body();
    _exit(0);
  }
  g_children.push_back(pid);
  return pid;
}

void Describe(const char* tag, int status) {
  if (WIFEXITED(status)) {
    std::fprintf(stderr, "nccl_allreduce_floor: %s exited with status %d\n",
                 tag, WEXITSTATUS(status));
  } else if (WIFSIGNALED(status)) {
    std::fprintf(stderr, "nccl_allreduce_floor: %s killed by signal %d%s\n",
                 tag, WTERMSIG(status),
                 WTERMSIG(status) == SIGALRM ? " (deadline)" : "");
  }
}

// Waits for the current children. `posted()` says when their figures are
// in; `on_posted()` runs once then (it prints). Returns 0 when every child
// exited 0; 1 when one failed (the rest are killed); 3 when they posted
// but did not exit within kTeardownSeconds; 124 past the deadline.
template <typename Posted, typename OnPosted>
int Supervise(const char* what, const Options& o, Posted posted,
              OnPosted on_posted) {
  bool printed = false;
  double teardown_deadline = 0;
  size_t exited = 0;
  const size_t total = g_children.size();
  while (exited < total) {
    int status = 0;
    const pid_t pid = waitpid(-1, &status, WNOHANG);
    CHECK(pid >= 0);
    if (pid > 0) {
      const auto it = std::find(g_children.begin(), g_children.end(), pid);
      if (it == g_children.end()) continue;
      char tag[48];
      std::snprintf(tag, sizeof(tag), "%s child %d", what,
                    static_cast<int>(it - g_children.begin()));
      *it = -1;  // reaped
      ++exited;
      if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        Describe(tag, status);
        g_children.erase(std::remove(g_children.begin(), g_children.end(), -1),
                         g_children.end());
        KillChildren();
        return 1;
      }
      continue;
    }
    if (!printed && posted()) {
      on_posted();
      printed = true;
      teardown_deadline = Now() + kTeardownSeconds;
    }
    const double now = Now();
    if (now > o.deadline || (printed && now > teardown_deadline)) {
      std::fprintf(stderr,
                   "nccl_allreduce_floor: %s: %s; killing the children\n", what,
                   printed ? "children did not exit after posting (teardown "
                             "hung)"
                           : "past the deadline (FLOOR_TIMEOUT_S)");
      g_children.erase(std::remove(g_children.begin(), g_children.end(), -1),
                       g_children.end());
      KillChildren();
      return printed ? 3 : 124;
    }
    usleep(2000);
  }
  g_children.clear();
  if (!printed) {
    if (!posted()) {
      std::fprintf(stderr,
                   "nccl_allreduce_floor: %s: children exited without "
                   "posting their figures\n",
                   what);
      return 1;
    }
    on_posted();
  }
  return 0;
}

bool ParseInt(const char* text, int* out) {
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || v < 0 || v > 1000000) return false;
  *out = static_cast<int>(v);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (argc > 4 || (argc > 1 && !ParseInt(argv[1], &o.iters)) ||
      (argc > 2 && !ParseInt(argv[2], &o.warmup)) ||
      (argc > 3 && !ParseInt(argv[3], &o.ngpus)) || o.iters < 1) {
    std::fprintf(stderr, "usage: %s [ITERS [WARMUP [NGPUS]]]\n", argv[0]);
    return 2;
  }
  if (const char* op = std::getenv("FLOOR_OP")) {
    o.op_name = op;
    if (std::strcmp(op, "all_reduce") == 0) {
      o.op = Op::kAllReduce;
    } else if (std::strcmp(op, "all_gather") == 0) {
      o.op = Op::kAllGather;
    } else if (std::strcmp(op, "sendrecv") == 0) {
      o.op = Op::kSendRecv;
    } else {
      std::fprintf(stderr,
                   "FLOOR_OP: '%s': allowed: all_reduce, all_gather, "
                   "sendrecv\n",
                   op);
      return 2;
    }
  }
  if (const char* b = std::getenv("FLOOR_BYTES")) {
    char* end = nullptr;
    const unsigned long long v = std::strtoull(b, &end, 10);
    if (end == b || *end != '\0' || v < 8 || v > (1ULL << 30) || v % 8 != 0) {
      std::fprintf(stderr,
                   "FLOOR_BYTES: '%s': allowed: 8 to 1073741824, a multiple "
                   "of 8\n",
                   b);
      return 2;
    }
    o.bytes = v;
  }
  double budget = 50;
  if (const char* env = std::getenv("FLOOR_TIMEOUT_S")) budget = std::atof(env);
  if (budget <= 0) budget = 50;
  o.deadline = Now() + budget;
  // Nothing in this process may touch CUDA: every child is forked from it.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);

  void* mem = mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  CHECK(mem != MAP_FAILED);
  Shared* shared = new (mem) Shared();

  Spawn("probe", o, [shared] { RunProbe(shared); });
  int rc = Supervise(
      "probe", o, [shared] { return shared->ngpus.load() >= 0; }, [] {});
  if (rc != 0) return rc;
  int n = shared->ngpus.load(std::memory_order_acquire);
  if (o.ngpus > 0) n = std::min(n, o.ngpus);
  if (n < 1 || n > kMaxRanks) {
    std::fprintf(stderr, "nccl_allreduce_floor: %d usable GPU(s)\n", n);
    return 1;
  }
  if (o.op == Op::kAllGather && o.bytes % (sizeof(float) * n) != 0) {
    std::fprintf(stderr,
                 "FLOOR_BYTES: all_gather of %zu B does not split into %d "
                 "ranks' floats\n",
                 o.bytes, n);
    return 2;
  }
  std::fprintf(stderr,
               "nccl_allreduce_floor: %d GPU(s), %zu B float %s, "
               "out-of-place, %d warm-ups + %d timed ops\n",
               n, o.bytes, o.op_name, o.warmup, o.iters);

  // Multi-process: one child per GPU.
  for (int r = 0; r < n; ++r) {
    char tag[16];
    std::snprintf(tag, sizeof(tag), "rank %d", r);
    Spawn(tag, o, [r, n, &o, shared] { RunRank(r, n, o, shared); });
  }
  auto all_posted = [n, shared] {
    for (int r = 0; r < n; ++r) {
      if (shared->ranks[r].done.load(std::memory_order_acquire) == 0) {
        return false;
      }
    }
    return true;
  };
  auto print_multi = [n, shared] {
    double plain = 0, graph = 0;
    for (int r = 0; r < n; ++r) {
      std::fprintf(stderr, "  rank %d: plain %.2f us, graph %.2f us\n", r,
                   shared->ranks[r].plain_us, shared->ranks[r].graph_us);
      plain = std::max(plain, shared->ranks[r].plain_us);
      graph = std::max(graph, shared->ranks[r].graph_us);
    }
    std::printf("floor plain %.2f\nfloor graph %.2f\n", plain, graph);
    std::fflush(stdout);
  };
  return Supervise("multi-process", o, all_posted, print_multi);
}
