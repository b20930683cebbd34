// A live NCCL communicator on one GPU, with its stream, events and buffers.
#pragma once

#include <cuda_runtime.h>
#include <nccl.h>

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "daemon/backend/collective_backend.h"
#include "daemon/core/moe_data.h"
#include "daemon/core/moe_routing.h"

namespace fabricpulse::backend {

// Regions of the sweep buffer start at multiples of this; its last
// kBufferAlign bytes hold the data check's counter.
inline constexpr uint64_t kBufferAlign = 256;
inline uint64_t AlignUp(uint64_t v) {
  return (v + kBufferAlign - 1) / kBufferAlign * kBufferAlign;
}

// RunStep/Reserve from one thread at a time; Abort() from any thread.
class NcclCommunicator : public Communicator {
 public:
  // Takes ownership of `comm`, a blocking communicator (its calls are
  // bounded by the watchdog). Errors: those of creating the stream.
  static absl::StatusOr<std::unique_ptr<Communicator>> Create(
      ncclComm_t comm, int gpu, int rank, int nranks, double mem_fraction);
  ~NcclCommunicator() override;

  int rank() const override { return rank_; }
  int nranks() const override { return nranks_; }
  // Errors: RESOURCE_EXHAUSTED when max_bytes exceeds mem_fraction x the
  // device's free memory (nothing is allocated then).
  absl::Status Reserve(uint64_t max_bytes) override;
  absl::StatusOr<StepOutcome> RunStep(const core::Step& step,
                                      const RunOptions& options) override;
  void TrimBuffers(uint64_t keep_bytes) override;
  uint64_t buffer_bytes() const override { return buffer_bytes_; }
  // ncclAllReduce(ncclMax) of ncclDouble on a small device buffer of its
  // own (allocated at the first call, freed with the communicator), on the
  // communicator's stream, polled like every op (Wait).
  absl::StatusOr<std::vector<double>> AgreeMax(
      const std::vector<double>& values, const RunOptions& options) override;
  bool broken() const override { return broken_.load(); }
  void Abort() override;

 private:
  NcclCommunicator(ncclComm_t comm, int gpu, int rank, int nranks,
                   double mem_fraction);
  // Aborts the communicator once (never destroys: destroy may wait on
  // peers that are gone).
  void AbortComms();
  // Watches blocking NCCL calls: one that passes its deadline, or runs when
  // Abort() is asked for, gets its communicator aborted from this thread
  // (the calling thread is stuck inside NCCL and cannot do it). Asleep
  // while the communicator is not armed (an idle worker costs nothing);
  // armed (a step runs), it checks the call in flight every 10 ms.
  void WatchdogLoop();
  // Arms the watchdog for the life of the object: around a step, so that
  // each of its NCCL calls costs two atomic stores (in_call_) rather than a
  // wake-up of the watchdog thread before and after it (1-3 us per op that
  // small messages showed as latency, issue 29 item 11). Owner thread only.
  class Armed {
   public:
    explicit Armed(NcclCommunicator* c);
    ~Armed();
    Armed(const Armed&) = delete;
    Armed& operator=(const Armed&) = delete;

   private:
    NcclCommunicator* const c_;
  };
  // Runs `call` (a blocking NCCL call) under the watchdog (arming it for
  // this call when no step armed it). Owner thread only.
  ncclResult_t Guarded(absl::Time deadline,
                       absl::FunctionRef<ncclResult_t()> call);

  struct Buffers {
    void* send = nullptr;
    void* recv = nullptr;
    uint64_t send_count = 0;
    uint64_t recv_count = 0;
    // The moe ops' exchange (moe_), else null.
    const core::MoeExchange* moe = nullptr;
    // moe_combine_weighted: the returned rows by token on the device (as
    // moe_rows_) and the float32 output of their weighted sum, else null.
    const uint32_t* moe_begin = nullptr;
    const uint32_t* moe_rows = nullptr;
    const float* moe_weights = nullptr;
    float* moe_out = nullptr;
  };
  Buffers Place(const core::Step& step) const;
  // The moe ops (nccl_moe.cc): builds moe_ for `step`, reserves and places
  // its rows, and writes this rank's send rows (built on the host, copied
  // once, before the warm-ups).
  absl::StatusOr<Buffers> PrepareMoe(const core::Step& step,
                                     const RunOptions& options);
  // One exchange: a group of ncclSend/ncclRecv per peer with rows to move
  // (this rank included, as torch's all_to_all_single does); for
  // moe_combine_weighted then the weighted-sum kernel (moe_kernels.h).
  ncclResult_t EnqueueMoe(const core::Step& step, const Buffers& b);
  // Poisons the receive rows, runs one exchange, copies them to the host
  // and counts them with core::CountMoeWrong (and the weighted output with
  // core::CountMoeWeightedWrong).
  absl::StatusOr<int64_t> CheckMoe(const core::Step& step, const Buffers& b,
                                   const RunOptions& options);
  // Copies `bytes` between host and device on the stream and waits for it
  // (bounded like an op).
  absl::Status CopyAndWait(void* dst, const void* src, uint64_t bytes,
                           cudaMemcpyKind kind, const RunOptions& options);
  // Enqueues one collective of `step` on the stream, waiting (bounded by
  // `deadline`, abort and cancellation) while a non-blocking communicator
  // reports the enqueue in progress. Failures abort the communicator.
  absl::Status Enqueue(const core::Step& step, const Buffers& b,
                       absl::Time deadline, const RunOptions& options);
  // Runs `call` (enqueues one NCCL collective named `what`) under the
  // watchdog and maps its result: Enqueue's and RunAgreeMax's common part.
  absl::Status GuardedEnqueue(absl::string_view what, absl::Time deadline,
                              const RunOptions& options,
                              absl::FunctionRef<ncclResult_t()> call);
  // AgreeMax without its argument checks; failures abort (as Wait does).
  absl::StatusOr<std::vector<double>> RunAgreeMax(
      const std::vector<double>& values, const RunOptions& options);
  // Polls `event` (cudaEventQuery + ncclCommGetAsyncError) until it
  // completes, the deadline passes or the sweep is cancelled/aborted. On any
  // failure the communicator is aborted and marked broken.
  absl::Status Wait(cudaEvent_t event, absl::Time deadline,
                    const RunOptions& options);
  // How one timed loop of TimeIterations runs.
  struct LoopTiming {
    absl::Time deadline;
    bool one_by_one = false;  // an event between ops, else around the loop
    absl::Time shared_start;  // arrival stamps count from here
    int first = 0;  // index of the loop's first op among the step's timed ops
  };
  // Ops at least this long (warm-ups' mean, host clock) are timed one by
  // one in a single loop: the events' cost is then below 1 %.
  static constexpr absl::Duration kOneByOneAloneAbove = absl::Microseconds(200);
  // The mean of a short op (TimedLoopPair): a loop of at least this many
  // ops, behind this many untimed ones, in fixed and adaptive mode alike.
  static constexpr int kMinMeanLoop = 20;
  static constexpr int kMeanLeadIn = 20;
  // The ops a TimedLoopPair of `iters` enqueues (its deadline's count).
  static constexpr int PairOps(int iters) {
    return iters + kMeanLeadIn + (iters > kMinMeanLoop ? iters : kMinMeanLoop);
  }
  // Creates events until there are `count`.
  absl::Status EnsureEvents(int count);
  // Queues the launch cover (launch_cover.h) on the drained stream.
  absl::Status CoverLaunch();
  // Queues `iters` timed ops and their events, from events_[first_event]:
  // one after each op (timing.one_by_one) or one after the last; adds
  // arrival stamps when arrival_sum. Does not wait.
  absl::Status EnqueueTimedLoop(const core::Step& step, const Buffers& b,
                                const RunOptions& options,
                                const LoopTiming& timing, int iters,
                                int first_event, double* arrival_sum);
  // *seconds gets each op's time of a completed loop queued at
  // `first_event` (one by one), or the loop's mean for each.
  absl::Status ReadTimedLoop(int first_event, bool one_by_one, int iters,
                             std::vector<double>* seconds);
  // Runs `iters` timed ops; *seconds gets each op's time (one by one) or
  // the loop's mean for each; adds arrival stamps when arrival_sum.
  absl::Status TimedLoop(const core::Step& step, const Buffers& b,
                         const RunOptions& options, const LoopTiming& timing,
                         int iters, std::vector<double>* seconds,
                         double* arrival_sum);
  // Short ops: `iters` ops timed one by one (*seconds, the arrival stamps),
  // then at once, with no drain between, kMeanLeadIn untimed ops and
  // max(iters, kMinMeanLoop) more timed as a whole (*loop_mean, per op). Right
  // after an idle GPU some kernels run faster for a few hundred microseconds
  // (measured on an H200: NCCL's one-rank send/recv copy, 1-4 % for the first
  // ops); behind the first loop the mean's ops follow busy ones, so a short
  // adaptive batch is not read as such a burst where a fixed loop of 20 is
  // mostly past it. Late entries land at the same indices in both loops.
  absl::Status TimedLoopPair(const core::Step& step, const Buffers& b,
                             const RunOptions& options,
                             const LoopTiming& timing, int iters,
                             std::vector<double>* seconds, double* loop_mean,
                             double* arrival_sum);
  // The timed loops of adaptive mode: batches as core::RunAdaptiveBatches
  // asks, each followed by an agreement; with `second_pass` (short ops)
  // each batch is a TimedLoopPair. Fills
  // outcome->iteration_seconds, iterations, timed_one_by_one and
  // loop_mean_seconds.
  absl::Status TimeAdaptive(const core::Step& step, const Buffers& b,
                            const RunOptions& options, const LoopTiming& timing,
                            bool second_pass, double* arrival_sum,
                            StepOutcome* outcome);
  // Fill outcome->iteration_seconds, iterations, timed_one_by_one,
  // loop_mean_seconds and arrival_seconds.
  absl::Status TimeIterations(const core::Step& step, const Buffers& b,
                              const RunOptions& options, StepOutcome* outcome);
  absl::Status TimeGraph(const core::Step& step, const Buffers& b,
                         const RunOptions& options, StepOutcome* outcome);
  absl::StatusOr<int64_t> CheckData(const core::Step& step, const Buffers& b,
                                    const RunOptions& options);
  absl::Status Fail(absl::Status status);
  void FreeBuffers();

  const bool per_iteration_events_;
  ncclComm_t comm_;  // blocking
  const int gpu_;
  const int rank_;
  const int nranks_;
  const double mem_fraction_;
  cudaStream_t stream_ = nullptr;
  std::vector<cudaEvent_t> events_;
  unsigned long long* wrong_counter_ = nullptr;
  // AgreeMax's buffers (kMaxAgreeValues doubles each) and event.
  double* agree_device_ = nullptr;
  double* agree_host_ = nullptr;  // pinned
  cudaEvent_t agree_event_ = nullptr;
  std::optional<core::MoeExchange> moe_;
  core::MoeTokenRows moe_rows_;  // moe_combine_weighted's, host side
  void* buffer_ = nullptr;
  uint64_t buffer_bytes_ = 0;
  std::atomic<bool> broken_{false};
  std::atomic<bool> abort_requested_{false};
  absl::Mutex abort_mu_;  // serializes ncclCommAbort
  bool aborted_ ABSL_GUARDED_BY(abort_mu_) = false;
  // Watchdog state. The watchdog holds watch_mu_ while it decides to abort
  // and aborts, with aborting_ set; a thread leaving a guarded call clears
  // in_call_, then, when it sees aborting_, waits for watch_mu_ (both
  // sequentially consistent: one of them sees the other), so it never
  // touches a communicator mid-abort.
  absl::Mutex watch_mu_;
  std::atomic<int> armed_{0};  // changed under watch_mu_ (wakes the watchdog)
  std::atomic<bool> in_call_{false};
  std::atomic<int64_t> call_deadline_ns_{0};  // Unix ns of the call's deadline
  std::atomic<bool> aborting_{false};
  bool stop_watchdog_ ABSL_GUARDED_BY(watch_mu_) = false;
  std::atomic<bool> watchdog_fired_{false};
  std::thread watchdog_;
};

}  // namespace fabricpulse::backend
