// How the shape of a step's timed loops moves its mean, on one GPU: NCCL's
// one-rank send/recv (a copy kernel) timed in sequences of loops the way
// NcclCommunicator times a short step (nccl_timing.cc), fixed and adaptive,
// with the loop timed as a whole before or behind the percentile loop.
// Every sequence runs REPS times, interleaved, in one process on one pair
// of buffers, so the buffers' placement and the GPU's state hit all alike.
//
//   loop_shape_bias BYTES [REPS [SEQUENCE ...]]   (defaults: 40, see below)
//
// A SEQUENCE is tokens, commas ignored: W an untimed op; D drain the
// stream; S the launch cover (launch_cover.h, 50 us); Mn n ops timed as a
// whole, Tn n ops timed one by one (both drain after), counted in the
// mean; mn and tn the same, not counted; Cn n ops timed one by one then,
// with no drain between, n more timed as a whole, the second counted
// (TimedLoopPair). Without sequences it runs four: fixed (20) and adaptive
// (2 batches of 4) with the percentile loop after the mean's loop (the
// order before 2026-12-02), then both with it before (TimedLoopPair).
//
// stdout: one line per sequence, its mean op time over the reps, the
// reps' standard deviation, and the mean's difference from the first
// sequence's in % (negative: faster; as busbw that is the opposite sign).
// Exit 0, 1 on a CUDA or NCCL error, 2 for bad arguments.
#include <cuda_runtime.h>
#include <nccl.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "daemon/backend/nccl/launch_cover.h"

namespace {

namespace launch_cover = fabricpulse::backend::launch_cover;

#define CHECK_OK(call)                                                 \
  do {                                                                 \
    const int status_ = static_cast<int>(call);                        \
    if (status_ != 0) {                                                \
      std::fprintf(stderr, "loop_shape_bias: %s failed (%d)\n", #call, \
                   status_);                                           \
      std::exit(1);                                                    \
    }                                                                  \
  } while (0)

constexpr int kMaxLoop = 1000;

struct Gpu {
  ncclComm_t comm;
  cudaStream_t stream;
  char* send = nullptr;
  char* recv = nullptr;
  size_t bytes = 0;
  std::vector<cudaEvent_t> events;

  void Op() {
    const size_t count = bytes / sizeof(float);
    CHECK_OK(ncclGroupStart());
    CHECK_OK(ncclSend(send, count, ncclFloat, 0, comm, stream));
    CHECK_OK(ncclRecv(recv, count, ncclFloat, 0, comm, stream));
    CHECK_OK(ncclGroupEnd());
  }
  // Queues n ops from events[first]; one event after each (one by one) or
  // after the last.
  void Loop(int n, bool one_by_one, int first) {
    CHECK_OK(cudaEventRecord(events[first], stream));
    for (int i = 0; i < n; ++i) {
      Op();
      if (one_by_one || i == n - 1) {
        CHECK_OK(
            cudaEventRecord(events[first + (one_by_one ? i + 1 : 1)], stream));
      }
    }
  }
  double Elapsed(int from, int to) {
    float ms = 0;
    CHECK_OK(cudaEventElapsedTime(&ms, events[from], events[to]));
    return ms * 1e3;
  }
};

// Runs one sequence; returns the mean counted op time in microseconds, or
// -1 for a bad sequence.
double RunSequence(Gpu& gpu, const std::string& seq) {
  double sum = 0;
  int counted = 0;
  for (size_t i = 0; i < seq.size();) {
    const char c = seq[i++];
    if (c == ',') continue;
    if (c == 'W') {
      gpu.Op();
      continue;
    }
    if (c == 'D') {
      CHECK_OK(cudaStreamSynchronize(gpu.stream));
      continue;
    }
    if (c == 'S') {
      CHECK_OK(
          launch_cover::LaunchSpin(launch_cover::kCoverMicros, gpu.stream));
      continue;
    }
    size_t used = 0;
    int n = 0;
    try {
      n = std::stoi(seq.substr(i), &used);
    } catch (...) {
      return -1;
    }
    i += used;
    if (n < 1 || n > kMaxLoop) return -1;
    const bool count = c == 'M' || c == 'T' || c == 'C';
    double total = 0;
    switch (c) {
      case 'M':
      case 'm':
        gpu.Loop(n, false, 0);
        CHECK_OK(cudaStreamSynchronize(gpu.stream));
        total = gpu.Elapsed(0, 1);
        break;
      case 'T':
      case 't':
        gpu.Loop(n, true, 0);
        CHECK_OK(cudaStreamSynchronize(gpu.stream));
        total = gpu.Elapsed(0, n);
        break;
      case 'C':
        gpu.Loop(n, true, 0);
        gpu.Loop(n, false, n + 1);
        CHECK_OK(cudaStreamSynchronize(gpu.stream));
        total = gpu.Elapsed(n + 1, n + 2);
        break;
      default:
        return -1;
    }
    if (count) {
      sum += total;
      counted += n;
    }
  }
  CHECK_OK(cudaStreamSynchronize(gpu.stream));
  return counted > 0 ? sum / counted : -1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: loop_shape_bias BYTES [REPS [SEQUENCE ...]]\n");
    return 2;
  }
  Gpu gpu;
  gpu.bytes = std::strtoull(argv[1], nullptr, 0);
  const int reps = argc > 2 ? std::atoi(argv[2]) : 40;
  if (gpu.bytes < sizeof(float) || reps < 2) {
    std::fprintf(stderr, "loop_shape_bias: BYTES >= 4 and REPS >= 2\n");
    return 2;
  }
  std::vector<std::string> seqs(argv + std::min(argc, 3), argv + argc);
  if (seqs.empty()) {
    seqs = {"WWWWW,D,S,M20,S,t20", "WWWWW,D,S,M4,S,t4,D,S,M4,S,t4",
            "WWWWW,D,S,C20", "WWWWW,D,S,C4,D,S,C4"};
  }
  CHECK_OK(cudaSetDevice(0));
  ncclUniqueId id;
  CHECK_OK(ncclGetUniqueId(&id));
  CHECK_OK(ncclCommInitRank(&gpu.comm, 1, id, 0));
  CHECK_OK(cudaStreamCreateWithFlags(&gpu.stream, cudaStreamNonBlocking));
  CHECK_OK(cudaMalloc(&gpu.send, gpu.bytes));
  CHECK_OK(cudaMalloc(&gpu.recv, gpu.bytes));
  gpu.events.resize(2 * kMaxLoop + 3);
  for (auto& e : gpu.events) CHECK_OK(cudaEventCreate(&e));
  for (int i = 0; i < 10; ++i) gpu.Op();
  CHECK_OK(cudaStreamSynchronize(gpu.stream));

  std::vector<std::vector<double>> means(seqs.size());
  for (int r = 0; r < reps; ++r) {
    for (size_t q = 0; q < seqs.size(); ++q) {
      const double m = RunSequence(gpu, seqs[q]);
      if (m < 0) {
        std::fprintf(stderr, "loop_shape_bias: bad sequence '%s'\n",
                     seqs[q].c_str());
        return 2;
      }
      means[q].push_back(m);
    }
  }
  double first = 0;
  for (size_t q = 0; q < seqs.size(); ++q) {
    double m = 0, var = 0;
    for (double x : means[q]) m += x;
    m /= reps;
    for (double x : means[q]) var += (x - m) * (x - m);
    if (q == 0) first = m;
    std::printf("%zu B %-34s mean %9.2f us  sd %6.2f  %+6.2f %%\n", gpu.bytes,
                seqs[q].c_str(), m, std::sqrt(var / (reps - 1)),
                (m / first - 1) * 100);
  }
  for (auto& e : gpu.events) cudaEventDestroy(e);
  cudaFree(gpu.send);
  cudaFree(gpu.recv);
  ncclCommDestroy(gpu.comm);
  return 0;
}
