// NcclCommunicator's timed iterations: loops timed one by one or as a
// whole, adaptive batches, and CUDA-graph replays.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "daemon/backend/nccl/cuda_status.h"
#include "daemon/backend/nccl/launch_cover.h"
#include "daemon/backend/nccl/nccl_communicator.h"
#include "daemon/core/adaptive_loop.h"
#include "daemon/core/clock.h"
#include "daemon/core/status_macros.h"

namespace fabricpulse::backend {
namespace {

// cudaEventElapsedTime's resolution, as the CUDA runtime API documents it
// ("around 0.5 microseconds"): the tick adaptive mode's interval allows for.
constexpr double kCudaEventResolutionSeconds = 0.5e-6;

}  // namespace

absl::Status NcclCommunicator::EnsureEvents(int count) {
  while (events_.size() < static_cast<size_t>(count)) {
    cudaEvent_t e;
    FP_RETURN_IF_ERROR(CudaToStatus(cudaEventCreate(&e), "cudaEventCreate"));
    events_.push_back(e);
  }
  return absl::OkStatus();
}

absl::Status NcclCommunicator::EnqueueTimedLoop(
    const core::Step& step, const Buffers& b, const RunOptions& options,
    const LoopTiming& timing, int iters, int first_event, double* arrival_sum) {
  FP_RETURN_IF_ERROR(CudaToStatus(
      cudaEventRecord(events_[first_event], stream_), "cudaEventRecord"));
  for (int i = 0; i < iters; ++i) {
    if (EntersLate(options, timing.first + i)) {
      absl::SleepFor(options.late_entry);
    }
    if (arrival_sum != nullptr) {
      *arrival_sum += absl::ToDoubleSeconds(absl::Now() - timing.shared_start);
    }
    FP_RETURN_IF_ERROR(Enqueue(step, b, timing.deadline, options));
    if (timing.one_by_one || i == iters - 1) {
      const int e = first_event + (timing.one_by_one ? i + 1 : 1);
      FP_RETURN_IF_ERROR(CudaToStatus(cudaEventRecord(events_[e], stream_),
                                      "cudaEventRecord"));
    }
  }
  return absl::OkStatus();
}

absl::Status NcclCommunicator::ReadTimedLoop(int first_event, bool one_by_one,
                                             int iters,
                                             std::vector<double>* seconds) {
  const int intervals = one_by_one ? iters : 1;
  seconds->clear();
  for (int i = 0; i < intervals; ++i) {
    float ms = 0;
    FP_RETURN_IF_ERROR(
        CudaToStatus(cudaEventElapsedTime(&ms, events_[first_event + i],
                                          events_[first_event + i + 1]),
                     "cudaEventElapsedTime"));
    seconds->push_back(ms / 1e3);
  }
  if (!one_by_one) seconds->assign(iters, seconds->front() / iters);
  return absl::OkStatus();
}

absl::Status NcclCommunicator::CoverLaunch() {
  // The stream was drained before the loop, so its first op would wait for
  // the host to launch it (several microseconds), which is not the op's
  // time. A spin kernel ahead of the start event (launch_cover.h) keeps the
  // stream busy meanwhile; behind it the host stays ahead of the GPU. Every
  // op is then timed, a slow or late first one included.
  return CudaToStatus(
      launch_cover::LaunchSpin(launch_cover::kCoverMicros, stream_),
      "launch_cover::LaunchSpin");
}

absl::Status NcclCommunicator::TimedLoop(const core::Step& step,
                                         const Buffers& b,
                                         const RunOptions& options,
                                         const LoopTiming& timing, int iters,
                                         std::vector<double>* seconds,
                                         double* arrival_sum) {
  const int last = timing.one_by_one ? iters : 1;
  FP_RETURN_IF_ERROR(EnsureEvents(last + 1));
  FP_RETURN_IF_ERROR(CoverLaunch());
  FP_RETURN_IF_ERROR(
      EnqueueTimedLoop(step, b, options, timing, iters, 0, arrival_sum));
  FP_RETURN_IF_ERROR(Wait(events_[last], timing.deadline, options));
  return ReadTimedLoop(0, timing.one_by_one, iters, seconds);
}

absl::Status NcclCommunicator::TimedLoopPair(
    const core::Step& step, const Buffers& b, const RunOptions& options,
    const LoopTiming& timing, int iters, std::vector<double>* seconds,
    double* loop_mean, double* arrival_sum) {
  // Events 0..iters time the first loop op by op; iters+1 and iters+2 the
  // mean's loop as a whole, which runs at least kMinMeanLoop ops behind
  // kMeanLeadIn untimed ones, whatever the batch: the launch cover lets the
  // host run up to its length ahead of the GPU, and a short batch's loop
  // read inside that lead measured the GPU alone (2.1 us for a one-rank
  // 8 B all_reduce on an H200, where 20 ops in a row take 4.8 us each).
  const int whole_iters = std::max(iters, kMinMeanLoop);
  FP_RETURN_IF_ERROR(EnsureEvents(iters + 3));
  LoopTiming each = timing;
  each.one_by_one = true;
  LoopTiming whole = timing;
  whole.one_by_one = false;
  FP_RETURN_IF_ERROR(CoverLaunch());
  FP_RETURN_IF_ERROR(
      EnqueueTimedLoop(step, b, options, each, iters, 0, arrival_sum));
  for (int i = 0; i < kMeanLeadIn; ++i) {
    FP_RETURN_IF_ERROR(Enqueue(step, b, timing.deadline, options));
  }
  FP_RETURN_IF_ERROR(EnqueueTimedLoop(step, b, options, whole, whole_iters,
                                      iters + 1, nullptr));
  FP_RETURN_IF_ERROR(Wait(events_[iters + 2], timing.deadline, options));
  FP_RETURN_IF_ERROR(ReadTimedLoop(0, true, iters, seconds));
  std::vector<double> mean;
  FP_RETURN_IF_ERROR(ReadTimedLoop(iters + 1, false, whole_iters, &mean));
  *loop_mean = mean.front();
  return absl::OkStatus();
}

absl::Status NcclCommunicator::TimeAdaptive(
    const core::Step& step, const Buffers& b, const RunOptions& options,
    const LoopTiming& timing, bool second_pass, double* arrival_sum,
    StepOutcome* outcome) {
  // Every batch runs with a deadline of its own:
  // - ops timed one by one (>= kOneByOneAloneAbove): one loop per batch;
  //   the interval is over the per-iteration times;
  // - short ops (second_pass): per batch, TimedLoopPair: the iterations
  //   timed one by one (the percentiles, the arrival stamps), then at once
  //   the same count timed as a whole (the mean); the interval is over the
  //   per-iteration times of the first loop, whose spread is the ops' own
  //   (an event between ops adds a near-constant cost, not noise).
  //   Interleaving the two keeps the percentile pass as long as the mean's
  //   loop, as in fixed mode;
  // - FABRICPULSE_ITER_EVENTS=0: one loop timed as a whole per batch; only
  //   batch means exist, and the interval is over those (batches of
  //   min_iters each).
  LoopTiming batch_timing = timing;
  double loop_sum = 0;  // seconds, over the loops timed as a whole
  auto batch = [&](int iters, std::vector<double>* seconds) {
    if (second_pass) {
      batch_timing.deadline = absl::Now() + options.op_timeout * PairOps(iters);
      double mean = 0;
      FP_RETURN_IF_ERROR(TimedLoopPair(step, b, options, batch_timing, iters,
                                       seconds, &mean, arrival_sum));
      loop_sum += mean * iters;
    } else {
      batch_timing.deadline = absl::Now() + options.op_timeout * iters;
      FP_RETURN_IF_ERROR(TimedLoop(step, b, options, batch_timing, iters,
                                   seconds, arrival_sum));
    }
    batch_timing.first += iters;
    return absl::OkStatus();
  };
  auto agree = [&](const std::vector<double>& values) {
    return RunAgreeMax(values, options);
  };
  const bool batch_means = !timing.one_by_one && !second_pass;
  FP_ASSIGN_OR_RETURN(
      core::AdaptiveRun run,
      core::RunAdaptiveBatches(options.adaptive, batch_means,
                               kCudaEventResolutionSeconds, batch, agree,
                               *core::RealClock::Get()));
  outcome->iteration_seconds = std::move(run.seconds);
  outcome->iterations = run.iterations;
  outcome->timed_one_by_one = timing.one_by_one || second_pass;
  if (second_pass) outcome->loop_mean_seconds = loop_sum / run.iterations;
  return absl::OkStatus();
}

absl::Status NcclCommunicator::TimeIterations(const core::Step& step,
                                              const Buffers& b,
                                              const RunOptions& options,
                                              StepOutcome* outcome) {
  const bool adaptive = options.adaptive.enabled;
  const int planned = adaptive ? options.adaptive.max_iters : options.iters;
  FP_RETURN_IF_ERROR(EnsureEvents(adaptive ? 1 : planned + 1));
  LoopTiming timing;
  // Room for the warm-ups and the timed loops with the mean's lead-in (see
  // below); adaptive batches get deadlines of their own.
  timing.deadline = absl::Now() + options.op_timeout *
                                      (options.warmup_iters + PairOps(planned));
  const absl::Time warm_start = absl::Now();
  for (int i = 0; i < options.warmup_iters; ++i) {
    FP_RETURN_IF_ERROR(Enqueue(step, b, timing.deadline, options));
  }
  // The warm-ups' last collective completes on every rank at about the same
  // moment: that is the step's start the ranks share, from which each rank
  // stamps its entry into each timed op (nccl-tests also drains the stream
  // between warm-ups and timing). Without warm-ups there is no shared start
  // and no arrival times.
  const bool arrivals = options.warmup_iters > 0;
  absl::Duration warm_op = absl::InfiniteDuration();
  if (arrivals) {
    FP_RETURN_IF_ERROR(
        CudaToStatus(cudaEventRecord(events_[0], stream_), "cudaEventRecord"));
    FP_RETURN_IF_ERROR(Wait(events_[0], timing.deadline, options));
    timing.shared_start = absl::Now();
    warm_op = (timing.shared_start - warm_start) / options.warmup_iters;
  }
  // Per-iteration events (the default) time each iteration on its own, for
  // p50/p99, at the cost of an event record between ops (about 2 us per
  // op on an H200: docs/performance.md, "Percentiles and their cost").
  // Where an op takes long enough for that to vanish (>= kOneByOneAloneAbove,
  // judged from the warm-ups), one loop timed one by one gives the mean and
  // the percentiles. Shorter ops get the percentiles from a loop timed one by
  // one and the mean from a loop timed as a whole (nccl-tests' method, no
  // event between ops) queued right behind it (TimedLoopPair), so the
  // mean's ops follow busy ones as in sustained use rather than an idle
  // GPU. With FABRICPULSE_ITER_EVENTS=0 only the
  // loop timed as a whole runs, and the percentiles are absent. Without
  // warm-ups there is no estimate: one loop timed one by one. Adaptive
  // batches do the same per batch (TimeAdaptive).
  const bool second_pass =
      per_iteration_events_ && warm_op < kOneByOneAloneAbove;
  timing.one_by_one = per_iteration_events_ && !second_pass;
  double arrival_sum = 0;
  double* arrival_ptr = arrivals ? &arrival_sum : nullptr;
  if (adaptive) {
    FP_RETURN_IF_ERROR(TimeAdaptive(step, b, options, timing, second_pass,
                                    arrival_ptr, outcome));
    if (arrivals) outcome->arrival_seconds = arrival_sum / outcome->iterations;
    return absl::OkStatus();
  }
  if (second_pass) {
    double mean = 0;
    FP_RETURN_IF_ERROR(TimedLoopPair(step, b, options, timing, options.iters,
                                     &outcome->iteration_seconds, &mean,
                                     arrival_ptr));
    outcome->loop_mean_seconds = mean;
  } else {
    FP_RETURN_IF_ERROR(TimedLoop(step, b, options, timing, options.iters,
                                 &outcome->iteration_seconds, arrival_ptr));
  }
  outcome->iterations = options.iters;
  outcome->timed_one_by_one = timing.one_by_one || second_pass;
  if (arrivals) outcome->arrival_seconds = arrival_sum / options.iters;
  return absl::OkStatus();
}

absl::Status NcclCommunicator::TimeGraph(const core::Step& step,
                                         const Buffers& b,
                                         const RunOptions& options,
                                         StepOutcome* outcome) {
  FP_RETURN_IF_ERROR(EnsureEvents(2));
  // One op outside the capture first: a blocking communicator connects to
  // its peers lazily, which is not allowed while a stream is capturing.
  const absl::Time warm_deadline = absl::Now() + options.op_timeout;
  FP_RETURN_IF_ERROR(Enqueue(step, b, warm_deadline, options));
  FP_RETURN_IF_ERROR(
      CudaToStatus(cudaEventRecord(events_[0], stream_), "cudaEventRecord"));
  FP_RETURN_IF_ERROR(Wait(events_[0], warm_deadline, options));
  // Capture the timed iterations once, then time replays of the graph.
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  FP_RETURN_IF_ERROR(CudaToStatus(
      cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal),
      "cudaStreamBeginCapture"));
  const int launches = options.warmup_iters > 0 ? 2 : 1;
  const absl::Time deadline =
      absl::Now() + options.op_timeout * launches * options.iters;
  absl::Status captured;
  for (int i = 0; i < options.iters && captured.ok(); ++i) {
    captured = Enqueue(step, b, deadline, options);
  }
  cudaError_t end = cudaStreamEndCapture(stream_, &graph);
  if (captured.ok()) captured = CudaToStatus(end, "cudaStreamEndCapture");
  if (captured.ok()) {
    captured = CudaToStatus(cudaGraphInstantiate(&exec, graph, 0),
                            "cudaGraphInstantiate");
  }
  // One replay warms up (when warm-ups are asked for), one is timed.
  for (int l = 0; l < launches && captured.ok(); ++l) {
    if (l == launches - 1) {
      captured =
          CudaToStatus(cudaEventRecord(events_[0], stream_), "cudaEventRecord");
    }
    if (captured.ok()) {
      captured =
          CudaToStatus(cudaGraphLaunch(exec, stream_), "cudaGraphLaunch");
    }
  }
  if (captured.ok()) {
    captured =
        CudaToStatus(cudaEventRecord(events_[1], stream_), "cudaEventRecord");
  }
  if (captured.ok()) {
    captured = Wait(events_[1], deadline, options);
  }
  float ms = 0;
  if (captured.ok()) {
    captured = CudaToStatus(cudaEventElapsedTime(&ms, events_[0], events_[1]),
                            "cudaEventElapsedTime");
  }
  if (exec != nullptr) cudaGraphExecDestroy(exec);
  if (graph != nullptr) cudaGraphDestroy(graph);
  if (!captured.ok()) return broken_ ? captured : Fail(captured);
  // A replay gives only the total: every iteration gets the mean, and
  // neither percentiles nor arrival times were measured.
  outcome->iteration_seconds.assign(options.iters, ms / 1e3 / options.iters);
  outcome->iterations = options.iters;
  outcome->timed_one_by_one = false;
  return absl::OkStatus();
}

}  // namespace fabricpulse::backend
