#include "daemon/backend/nccl/nccl_communicator.h"

#include <sched.h>

#include <cstdlib>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "daemon/backend/nccl/check_kernels.h"
#include "daemon/backend/nccl/cuda_status.h"
#include "daemon/backend/nccl/nccl_types.h"
#include "daemon/core/byte_size.h"
#include "daemon/core/data_pattern.h"
#include "daemon/core/pair_schedule.h"
#include "daemon/core/status_macros.h"

namespace fabricpulse::backend {

NcclCommunicator::NcclCommunicator(ncclComm_t comm, int gpu, int rank,
                                   int nranks, double mem_fraction)
    : per_iteration_events_(
          std::getenv("FABRICPULSE_ITER_EVENTS") == nullptr ||
          std::string(std::getenv("FABRICPULSE_ITER_EVENTS")) != "0"),
      comm_(comm),
      gpu_(gpu),
      rank_(rank),
      nranks_(nranks),
      mem_fraction_(mem_fraction) {}

absl::StatusOr<std::unique_ptr<Communicator>> NcclCommunicator::Create(
    ncclComm_t comm, int gpu, int rank, int nranks, double mem_fraction) {
  std::unique_ptr<NcclCommunicator> c(
      new NcclCommunicator(comm, gpu, rank, nranks, mem_fraction));
  c->watchdog_ = std::thread([raw = c.get()] { raw->WatchdogLoop(); });
  FP_RETURN_IF_ERROR(CudaToStatus(
      cudaStreamCreateWithFlags(&c->stream_, cudaStreamNonBlocking),
      "cudaStreamCreate"));
  FP_RETURN_IF_ERROR(CudaToStatus(
      cudaMallocHost(&c->wrong_counter_, sizeof(unsigned long long)),
      "cudaMallocHost"));
  return std::unique_ptr<Communicator>(std::move(c));
}

NcclCommunicator::~NcclCommunicator() {
  {
    absl::MutexLock lock(&watch_mu_);
    stop_watchdog_ = true;
  }
  if (watchdog_.joinable()) watchdog_.join();
  cudaSetDevice(gpu_);
  AbortComms();
  FreeBuffers();
  for (cudaEvent_t e : events_) cudaEventDestroy(e);
  if (agree_event_ != nullptr) cudaEventDestroy(agree_event_);
  if (agree_device_ != nullptr) cudaFree(agree_device_);
  if (agree_host_ != nullptr) cudaFreeHost(agree_host_);
  if (wrong_counter_ != nullptr) cudaFreeHost(wrong_counter_);
  if (stream_ != nullptr) cudaStreamDestroy(stream_);
}

void NcclCommunicator::FreeBuffers() {
  if (buffer_ != nullptr) cudaFree(buffer_);
  buffer_ = nullptr;
  buffer_bytes_ = 0;
}

void NcclCommunicator::TrimBuffers(uint64_t keep_bytes) {
  if (buffer_bytes_ <= keep_bytes) return;
  cudaSetDevice(gpu_);
  FreeBuffers();
}

void NcclCommunicator::Abort() {
  abort_requested_ = true;
  broken_ = true;
  // A thread polling in Wait() sees the flag within microseconds and aborts
  // the communicator itself; one stuck inside a blocking NCCL call is
  // aborted by the watchdog, which this wakes.
  absl::MutexLock lock(&watch_mu_);
}

void NcclCommunicator::AbortComms() {
  absl::MutexLock lock(&abort_mu_);
  if (aborted_) return;
  cudaSetDevice(gpu_);
  ncclCommAbort(comm_);
  aborted_ = true;
}

absl::Status NcclCommunicator::Fail(absl::Status status) {
  broken_ = true;
  AbortComms();
  return status;
}

void NcclCommunicator::WatchdogLoop() {
  absl::MutexLock lock(&watch_mu_);
  while (!stop_watchdog_) {
    if (armed_.load() == 0) {
      // Idle: asleep until a step (or a lone call) arms it; no periodic
      // wake-ups: an idle worker must cost nothing.
      auto armed_or_stop = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(watch_mu_) {
        return stop_watchdog_ || armed_.load() > 0;
      };
      watch_mu_.Await(absl::Condition(&armed_or_stop));
      continue;
    }
    // in_call_ first: its store follows the deadline's, so the deadline read
    // after it is this call's (or a later one's), never an older step's.
    if (!watchdog_fired_.load() && in_call_.load() &&
        (abort_requested_.load() ||
         absl::Now() >= absl::FromUnixNanos(call_deadline_ns_.load()))) {
      aborting_.store(true);
      // Still in the call now that aborting_ is set: the caller, on its way
      // out, will wait for watch_mu_ (held here) until the abort is done.
      if (in_call_.load()) {
        watchdog_fired_ = true;
        broken_ = true;
        AbortComms();  // with watch_mu_ held: see the header
      }
      aborting_.store(false);
      continue;
    }
    auto wake = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(watch_mu_) {
      return stop_watchdog_ || armed_.load() == 0 || abort_requested_.load();
    };
    // Armed: check the call in flight every 10 ms.
    watch_mu_.AwaitWithTimeout(absl::Condition(&wake), absl::Milliseconds(10));
  }
}

NcclCommunicator::Armed::Armed(NcclCommunicator* c) : c_(c) {
  absl::MutexLock lock(&c_->watch_mu_);
  c_->armed_.fetch_add(1);
}

NcclCommunicator::Armed::~Armed() {
  absl::MutexLock lock(&c_->watch_mu_);
  c_->armed_.fetch_sub(1);
}

ncclResult_t NcclCommunicator::Guarded(absl::Time deadline,
                                       absl::FunctionRef<ncclResult_t()> call) {
  // A call outside a step (AgreeMax on its own) arms the watchdog for itself.
  std::optional<Armed> armed;
  if (armed_.load(std::memory_order_relaxed) == 0) armed.emplace(this);
  call_deadline_ns_.store(absl::ToUnixNanos(deadline),
                          std::memory_order_relaxed);
  in_call_.store(true);
  const ncclResult_t r = call();
  in_call_.store(false);
  if (aborting_.load()) absl::MutexLock wait_for_the_abort(&watch_mu_);
  return r;
}

absl::Status NcclCommunicator::Reserve(uint64_t max_bytes) {
  FP_RETURN_IF_ERROR(CudaToStatus(cudaSetDevice(gpu_), "cudaSetDevice"));
  // Slack for aligning the receive region, and the last kBufferAlign bytes for
  // the data check's counter.
  const uint64_t need = max_bytes + 3 * kBufferAlign;
  if (need <= buffer_bytes_) return absl::OkStatus();
  size_t free_bytes = 0, total = 0;
  FP_RETURN_IF_ERROR(
      CudaToStatus(cudaMemGetInfo(&free_bytes, &total), "cudaMemGetInfo"));
  const double allowed = mem_fraction_ * (free_bytes + buffer_bytes_);
  if (need > allowed) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "max_bytes: the sweep needs ", core::FormatByteSize(need),
        " of GPU memory on GPU ", gpu_, ", more than the allowed ",
        mem_fraction_, " x free (", core::FormatByteSize(free_bytes),
        "); lower max_bytes or raise FABRICPULSE_MEM_FRACTION"));
  }
  FreeBuffers();
  FP_RETURN_IF_ERROR(CudaToStatus(cudaMalloc(&buffer_, need), "cudaMalloc"));
  buffer_bytes_ = need;
  return absl::OkStatus();
}

NcclCommunicator::Buffers NcclCommunicator::Place(
    const core::Step& step) const {
  const core::BufferLayout layout =
      core::LayoutFor(step.op, step.count, nranks_, rank_, step.in_place);
  const uint64_t elem = core::DTypeSize(step.dtype);
  char* base = static_cast<char*>(buffer_);
  Buffers b;
  b.send_count = layout.send_count;
  b.recv_count = layout.recv_count;
  if (layout.in_place) {
    b.send = base + layout.send_offset * elem;
    b.recv = base + layout.recv_offset * elem;
  } else {
    b.send = base;
    b.recv = base + AlignUp(layout.send_count * elem);
  }
  return b;
}

absl::Status NcclCommunicator::Enqueue(const core::Step& step, const Buffers& b,
                                       absl::Time deadline,
                                       const RunOptions& options) {
  const ncclDataType_t t = NcclType(step.dtype);
  const ncclRedOp_t op = NcclRedOp(step.redop);
  const size_t chunk = step.count / nranks_;
  return GuardedEnqueue(
      core::OpName(step.op), deadline, options, [&]() -> ncclResult_t {
        switch (step.op) {
          case core::Op::kAllReduce:
            return ncclAllReduce(b.send, b.recv, step.count, t, op, comm_,
                                 stream_);
          case core::Op::kAllGather:
            return ncclAllGather(b.send, b.recv, chunk, t, comm_, stream_);
          case core::Op::kReduceScatter:
            return ncclReduceScatter(b.send, b.recv, chunk, t, op, comm_,
                                     stream_);
          case core::Op::kBroadcast:
            return ncclBroadcast(b.send, b.recv, step.count, t, step.root,
                                 comm_, stream_);
          case core::Op::kReduce:
            return ncclReduce(b.send, b.recv, step.count, t, op, step.root,
                              comm_, stream_);
          case core::Op::kAllToAll:
            return ncclAlltoAll(b.send, b.recv, chunk, t, comm_, stream_);
          case core::Op::kGather:
            return ncclGather(b.send, b.recv, chunk, t, step.root, comm_,
                              stream_);
          case core::Op::kScatter:
            return ncclScatter(b.send, b.recv, chunk, t, step.root, comm_,
                               stream_);
          case core::Op::kSendRecv: {
            // A ring, as nccl-tests: send to the next rank, receive from the
            // previous one.
            ncclGroupStart();
            ncclSend(b.send, step.count, t, (rank_ + 1) % nranks_, comm_,
                     stream_);
            ncclRecv(b.recv, step.count, t, (rank_ - 1 + nranks_) % nranks_,
                     comm_, stream_);
            return ncclGroupEnd();
          }
          case core::Op::kMoeDispatch:
          case core::Op::kMoeCombine:
          case core::Op::kMoeCombineWeighted:
            return EnqueueMoe(step, b);
          case core::Op::kPairwise: {
            // Both ways with this round's partner; a rank that sits the
            // round out enqueues nothing.
            const int partner = core::PairPartner(step.round, rank_, nranks_);
            if (partner < 0) return ncclSuccess;
            ncclGroupStart();
            ncclSend(b.send, step.count, t, partner, comm_, stream_);
            ncclRecv(b.recv, step.count, t, partner, comm_, stream_);
            return ncclGroupEnd();
          }
        }
        return ncclInvalidArgument;
      });
}

absl::Status NcclCommunicator::GuardedEnqueue(
    absl::string_view what, absl::Time deadline, const RunOptions& options,
    absl::FunctionRef<ncclResult_t()> call) {
  if (broken_) return absl::AbortedError("communicator was aborted");
  const ncclResult_t r = Guarded(deadline, call);
  if (watchdog_fired_) {
    if (abort_requested_ ||
        (options.cancelled != nullptr && options.cancelled->load())) {
      return absl::AbortedError("aborted");
    }
    return absl::DeadlineExceededError(absl::StrCat(
        what, " blocked past its deadline (per-op timeout ",
        absl::FormatDuration(options.op_timeout), "); communicator aborted"));
  }
  if (r != ncclSuccess) {
    return Fail(NcclToStatus(r, what, comm_));
  }
  return absl::OkStatus();
}

absl::Status NcclCommunicator::Wait(cudaEvent_t event, absl::Time deadline,
                                    const RunOptions& options) {
  // Never a blocking synchronize: a hung peer would hang us too.
  uint32_t spins = 0;
  while (true) {
    cudaError_t q = cudaEventQuery(event);
    if (q == cudaSuccess) return absl::OkStatus();
    if (q != cudaErrorNotReady) return Fail(CudaToStatus(q, "stream"));
    ncclResult_t async = ncclSuccess;
    ncclCommGetAsyncError(comm_, &async);
    if (async != ncclSuccess && async != ncclInProgress) {
      return Fail(NcclToStatus(async, "NCCL async error", comm_));
    }
    if (abort_requested_.load() ||
        (options.cancelled != nullptr && options.cancelled->load())) {
      return Fail(absl::AbortedError("aborted"));
    }
    if (absl::Now() >= deadline) {
      return Fail(absl::DeadlineExceededError(absl::StrCat(
          "collective did not complete within its deadline (per-op timeout ",
          absl::FormatDuration(options.op_timeout),
          "); communicator aborted")));
    }
    // Spin first (small messages finish in microseconds), then yield.
    if (++spins > 1000) sched_yield();
  }
}

absl::StatusOr<int64_t> NcclCommunicator::CheckData(const core::Step& step,
                                                    const Buffers& b,
                                                    const RunOptions& options) {
  nccl_check::PatternArgs args;
  args.op = static_cast<int>(step.op);
  args.redop = static_cast<int>(step.redop);
  args.dtype = static_cast<int>(step.dtype);
  args.root = core::PatternRoot(step);
  args.rank = rank_;
  args.nranks = nranks_;
  args.count = step.count;
  // Poison first, then fill: in place, the input overwrites its part of the
  // poisoned output.
  FP_RETURN_IF_ERROR(CudaToStatus(
      nccl_check::LaunchPoison(b.recv, b.recv_count, args.dtype, stream_),
      "poison kernel"));
  FP_RETURN_IF_ERROR(
      CudaToStatus(nccl_check::LaunchFill(b.send, b.send_count, args, stream_),
                   "fill kernel"));
  const absl::Time deadline = absl::Now() + options.op_timeout;
  FP_RETURN_IF_ERROR(Enqueue(step, b, deadline, options));
  unsigned long long* device_counter = reinterpret_cast<unsigned long long*>(
      static_cast<char*>(buffer_) + buffer_bytes_ - kBufferAlign);
  FP_RETURN_IF_ERROR(CudaToStatus(
      cudaMemsetAsync(device_counter, 0, sizeof(unsigned long long), stream_),
      "cudaMemsetAsync"));
  if (core::HasCheckedOutput(step, rank_, nranks_)) {
    FP_RETURN_IF_ERROR(
        CudaToStatus(nccl_check::LaunchCountWrong(b.recv, b.recv_count, args,
                                                  device_counter, stream_),
                     "check kernel"));
  }
  FP_RETURN_IF_ERROR(
      CudaToStatus(cudaMemcpyAsync(wrong_counter_, device_counter,
                                   sizeof(unsigned long long),
                                   cudaMemcpyDeviceToHost, stream_),
                   "cudaMemcpyAsync"));
  FP_RETURN_IF_ERROR(
      CudaToStatus(cudaEventRecord(events_[0], stream_), "cudaEventRecord"));
  FP_RETURN_IF_ERROR(Wait(events_[0], deadline, options));
  return static_cast<int64_t>(*wrong_counter_);
}

absl::StatusOr<StepOutcome> NcclCommunicator::RunStep(
    const core::Step& step, const RunOptions& options) {
  if (broken_) {
    return abort_requested_ ? absl::AbortedError("communicator was aborted")
                            : absl::FailedPreconditionError(
                                  "communicator is broken; build a new one");
  }
  // The watchdog checks this step's calls (asleep between steps).
  Armed armed(this);
  // Refused before anything runs (the communicator stays usable): a CUDA
  // graph replays a fixed count, and bad settings would never stop.
  if (options.adaptive.enabled) {
    FP_RETURN_IF_ERROR(core::ValidateAdaptive(options.adaptive, options.graph));
  }
  FP_RETURN_IF_ERROR(CudaToStatus(cudaSetDevice(gpu_), "cudaSetDevice"));
  Buffers b;
  if (core::IsMoe(step.op)) {
    absl::StatusOr<Buffers> placed = PrepareMoe(step, options);
    if (!placed.ok()) return broken_ ? placed.status() : Fail(placed.status());
    b = *placed;
  } else {
    const core::BufferLayout layout =
        core::LayoutFor(step.op, step.count, nranks_, rank_, step.in_place);
    const uint64_t elem = core::DTypeSize(step.dtype);
    // As core::MaxBufferBytes counts it; Reserve adds the alignment slack.
    const uint64_t bytes = layout.in_place
                               ? layout.alloc_count * elem
                               : (layout.send_count + layout.recv_count) * elem;
    FP_RETURN_IF_ERROR(Reserve(bytes));
    b = Place(step);
    // Inputs are never all zeros: fill them before timing as well.
    nccl_check::PatternArgs args{static_cast<int>(step.op),
                                 static_cast<int>(step.redop),
                                 static_cast<int>(step.dtype),
                                 step.root,
                                 rank_,
                                 nranks_,
                                 step.count};
    FP_RETURN_IF_ERROR(CudaToStatus(
        nccl_check::LaunchFill(b.send, b.send_count, args, stream_),
        "fill kernel"));
  }
  StepOutcome outcome;
  absl::Status timed = options.graph
                           ? TimeGraph(step, b, options, &outcome)
                           : TimeIterations(step, b, options, &outcome);
  if (!timed.ok()) return broken_ ? timed : Fail(timed);
  if (options.check) {
    auto wrong = core::IsMoe(step.op) ? CheckMoe(step, b, options)
                                      : CheckData(step, b, options);
    if (!wrong.ok()) return broken_ ? wrong.status() : Fail(wrong.status());
    outcome.wrong = *wrong;
  }
  return outcome;
}

}  // namespace fabricpulse::backend
