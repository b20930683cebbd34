#include "daemon/backend/gloo/gloo_communicator.h"

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <limits>
#include <new>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "daemon/backend/gloo/gloo_ops.h"
#include "daemon/backend/gloo/host_data_check.h"
#include "daemon/core/adaptive_loop.h"
#include "daemon/core/byte_size.h"
#include "daemon/core/clock.h"
#include "daemon/core/data_pattern.h"
#include "daemon/core/moe_data.h"
#include "daemon/core/moe_routing.h"
#include "daemon/core/status_macros.h"
#include "gloo/transport/pair.h"

namespace fabricpulse::backend {
namespace {

using gloo_impl::OpCall;

uint64_t WordsFor(uint64_t bytes) { return (bytes + 7) / 8; }

std::chrono::milliseconds ToChronoTimeout(absl::Duration timeout) {
  // Gloo adds the timeout to now(); keep it finite and at least 1 ms.
  timeout = std::clamp(timeout, absl::Milliseconds(1), core::kMaxOpTimeout);
  return absl::ToChronoMilliseconds(timeout);
}

absl::Status StepError(const core::Step& step, absl::string_view message) {
  return absl::InvalidArgumentError(absl::StrCat(
      "step ", step.index, " (", core::OpName(step.op), "): ", message));
}

}  // namespace

GlooCommunicator::GlooCommunicator(
    std::shared_ptr<gloo_impl::AbortableContext> context)
    : context_(std::move(context)) {}

GlooCommunicator::~GlooCommunicator() = default;

int GlooCommunicator::rank() const { return context_->rank; }

int GlooCommunicator::nranks() const { return context_->size; }

void GlooCommunicator::TrimBuffers(uint64_t keep_bytes) {
  if (buffer_bytes() <= keep_bytes) return;
  std::vector<uint64_t>().swap(buffer_);
  std::vector<uint64_t>().swap(scratch_);
}

uint64_t GlooCommunicator::buffer_bytes() const {
  return (buffer_.size() + scratch_.size()) * sizeof(uint64_t);
}

bool GlooCommunicator::broken() const { return broken_.load(); }

absl::Status GlooCommunicator::Reserve(uint64_t max_bytes) {
  if (max_bytes > kGlooMaxReserveBytes) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "Reserve: ", max_bytes, " bytes (", core::FormatByteSize(max_bytes),
        ") of host buffers exceed the gloo backend's limit of ",
        core::FormatByteSize(kGlooMaxReserveBytes),
        "; use a smaller max_bytes"));
  }
  // Free the old arena first so that growing does not need both at once.
  std::vector<uint64_t>().swap(buffer_);
  try {
    // Value-initialized: the pages are touched now, not in a timed op.
    buffer_.resize(WordsFor(max_bytes));
  } catch (const std::bad_alloc&) {
    return absl::ResourceExhaustedError(
        absl::StrCat("Reserve: cannot allocate ", max_bytes, " bytes (",
                     core::FormatByteSize(max_bytes), ") of host memory"));
  }
  return absl::OkStatus();
}

absl::Status GlooCommunicator::EnsureCapacity(uint64_t bytes,
                                              uint64_t scratch_bytes) {
  if (buffer_.size() < WordsFor(bytes)) FP_RETURN_IF_ERROR(Reserve(bytes));
  if (scratch_.size() < WordsFor(scratch_bytes)) {
    try {
      scratch_.resize(WordsFor(scratch_bytes));
    } catch (const std::bad_alloc&) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "cannot allocate ", scratch_bytes, " bytes of scratch memory"));
    }
  }
  return absl::OkStatus();
}

absl::Status GlooCommunicator::ValidateStep(const core::Step& step,
                                            const RunOptions& options) const {
  if (options.graph) {
    return StepError(step,
                     "graph: CUDA-graph mode needs the nccl backend; the "
                     "gloo backend runs on CPUs");
  }
  if (options.adaptive.enabled) {
    absl::Status adaptive = core::ValidateAdaptive(options.adaptive, false);
    if (!adaptive.ok()) return StepError(step, adaptive.message());
  }
  if ((!options.adaptive.enabled && options.iters < 1) ||
      options.warmup_iters < 0) {
    return StepError(step, absl::StrCat("iters must be >= 1 and warmup_iters "
                                        ">= 0; got iters=",
                                        options.iters, ", warmup_iters=",
                                        options.warmup_iters));
  }
  if (options.op_timeout <= absl::ZeroDuration()) {
    return StepError(step,
                     absl::StrCat("op_timeout must be positive; got ",
                                  absl::FormatDuration(options.op_timeout)));
  }
  const int n = nranks();
  if (core::IsMoe(step.op)) {
    // Rows are moved as bytes: the dtype only has to be the probe's.
    return core::ValidateMoeShape(step.moe, n);
  }
  FP_RETURN_IF_ERROR(gloo_impl::CheckDType(step.dtype));
  if (step.count == 0) return StepError(step, "count is 0");
  if (core::SplitsCount(step.op) && step.count % n != 0) {
    return StepError(
        step, absl::StrCat("count ", step.count, " does not split evenly over ",
                           n, " ranks"));
  }
  if (step.in_place && !core::SupportsInPlace(step.op)) {
    return StepError(step, "this op has no in-place variant");
  }
  if (core::IsRooted(step.op) && (step.root < 0 || step.root >= n)) {
    return StepError(
        step, absl::StrCat("root ", step.root, " is not one of ", n, " ranks"));
  }
  return absl::OkStatus();
}

absl::Status GlooCommunicator::CheckCancelled(const RunOptions& options) const {
  if (aborted_.load()) return absl::AbortedError("communicator was aborted");
  if (options.cancelled != nullptr && options.cancelled->load()) {
    return absl::AbortedError("step cancelled");
  }
  return absl::OkStatus();
}

absl::Status GlooCommunicator::BrokenError(absl::string_view what) const {
  if (aborted_.load()) {
    return absl::AbortedError(
        absl::StrCat(what, ": the communicator was aborted"));
  }
  return absl::FailedPreconditionError(absl::StrCat(
      what,
      ": the communicator is broken by an earlier error; create a new "
      "one"));
}

absl::StatusOr<StepOutcome> GlooCommunicator::RunStep(
    const core::Step& step, const RunOptions& options) {
  if (broken_.load()) return BrokenError(absl::StrCat("step ", step.index));
  absl::Status valid = ValidateStep(step, options);
  if (!valid.ok()) return Fail(std::move(valid));
  absl::StatusOr<StepOutcome> outcome = RunValidatedStep(step, options);
  if (!outcome.ok()) return Fail(outcome.status());
  // An Abort() that raced with the last op still breaks the communicator.
  if (aborted_.load()) return Fail(absl::AbortedError("aborted"));
  return outcome;
}

absl::StatusOr<StepOutcome> GlooCommunicator::RunValidatedStep(
    const core::Step& step, const RunOptions& options) {
  const int n = nranks();
  const int r = rank();
  const size_t element = core::DTypeSize(step.dtype);
  core::BufferLayout layout =
      core::LayoutFor(step.op, step.count, n, r, step.in_place);
  std::optional<core::MoeExchange> moe;
  core::MoeTokenRows moe_rows;
  std::vector<float> moe_out;
  if (core::IsMoe(step.op)) {
    FP_ASSIGN_OR_RETURN(moe, core::BuildMoeExchange(step.op, step.moe, n, r));
    if (step.op == core::Op::kMoeCombineWeighted) {
      moe_rows = core::GroupMoeRowsByToken(*moe, step.moe.tokens);
      moe_out.resize(static_cast<size_t>(step.moe.tokens) * moe->row_elements);
    }
    layout = core::BufferLayout();
    layout.send_count = moe->send_total * moe->row_elements;
    layout.recv_count = moe->recv_total * moe->row_elements;
  }
  const uint64_t elements = layout.in_place
                                ? layout.alloc_count
                                : layout.send_count + layout.recv_count;
  FP_RETURN_IF_ERROR(
      EnsureCapacity(elements * element, gloo_impl::ScratchBytes(step, n)));

  std::byte* base = reinterpret_cast<std::byte*>(buffer_.data());
  OpCall call;
  call.step = &step;
  call.layout = layout;
  call.rank = r;
  call.nranks = n;
  call.send = base + (layout.in_place ? layout.send_offset * element : 0);
  call.recv = base + (layout.in_place ? layout.recv_offset * element
                                      : layout.send_count * element);
  call.scratch = scratch_.data();
  call.moe = moe ? &*moe : nullptr;
  if (!moe_out.empty()) {
    call.moe_rows = &moe_rows;
    call.moe_out = moe_out.data();
  }
  call.timeout = ToChronoTimeout(options.op_timeout);
  context_->setTimeout(call.timeout);

  // Poison first: in place the two regions overlap, and the input must win.
  auto prepare = [&] {
    gloo_impl::Poison(call.recv, layout.recv_count * element);
    std::fill(moe_out.begin(), moe_out.end(),
              std::numeric_limits<float>::quiet_NaN());
    if (moe) {
      return core::FillMoeRows(step.dtype, moe->send_ids, moe->row_elements,
                               call.send);
    }
    return gloo_impl::FillInput(step, r, n, call.send, layout.send_count);
  };
  // Every rank runs the same sequence of ops, so the tags agree.
  auto run_once = [&] {
    call.tag = next_tag_++;
    return gloo_impl::RunGlooOp(context_, call);
  };

  FP_RETURN_IF_ERROR(prepare());
  for (int i = 0; i < options.warmup_iters; ++i) {
    FP_RETURN_IF_ERROR(CheckCancelled(options));
    FP_RETURN_IF_ERROR(run_once());
  }
  FP_RETURN_IF_ERROR(CheckCancelled(options));
  FP_RETURN_IF_ERROR(
      gloo_impl::RunGlooBarrier(context_, call.timeout, next_tag_++));

  // The barrier's end is the step's start the ranks share: each rank stamps
  // when it enters each timed op from there (a late rank shows; its own op
  // times, which do not wait, hide it). In adaptive mode every batch stamps
  // from it too: each agreement ends at about the same moment on every
  // rank, so a rank's lateness is what it adds after the shared start.
  const auto shared_start = std::chrono::steady_clock::now();
  double arrival_sum = 0;
  StepOutcome outcome;
  auto timed_batch = [&](int iters, std::vector<double>* seconds) {
    seconds->clear();
    seconds->reserve(iters);
    for (int i = 0; i < iters; ++i) {
      FP_RETURN_IF_ERROR(CheckCancelled(options));
      if (EntersLate(options, outcome.iterations)) {
        absl::SleepFor(options.late_entry);
      }
      const auto start = std::chrono::steady_clock::now();
      arrival_sum +=
          std::chrono::duration<double>(start - shared_start).count();
      FP_RETURN_IF_ERROR(run_once());
      const auto end = std::chrono::steady_clock::now();
      seconds->push_back(std::chrono::duration<double>(end - start).count());
      outcome.iterations++;
    }
    return absl::OkStatus();
  };
  if (options.adaptive.enabled) {
    // Every op is timed on its own: the interval is over those times.
    FP_ASSIGN_OR_RETURN(core::AdaptiveRun run,
                        core::RunAdaptiveBatches(
                            options.adaptive, /*batch_means=*/false,
                            /*resolution_seconds=*/1e-9,  // steady_clock's tick
                            timed_batch,
                            [&](const std::vector<double>& values) {
                              return RunAgreeMax(values, options);
                            },
                            *core::RealClock::Get()));
    outcome.iteration_seconds = std::move(run.seconds);
  } else {
    FP_RETURN_IF_ERROR(timed_batch(options.iters, &outcome.iteration_seconds));
  }
  outcome.arrival_seconds = arrival_sum / outcome.iterations;

  if (options.check) {
    FP_RETURN_IF_ERROR(CheckCancelled(options));
    FP_RETURN_IF_ERROR(prepare());
    FP_RETURN_IF_ERROR(run_once());
    if (moe) {
      FP_ASSIGN_OR_RETURN(
          outcome.wrong,
          core::CountMoeWrong(step.op, step.dtype, r, *moe, call.recv));
      if (call.moe_out != nullptr) {
        outcome.wrong += core::CountMoeWeightedWrong(
            r, moe_rows, moe->row_elements, call.moe_out);
      }
    } else if (core::HasCheckedOutput(step, r, n)) {
      FP_ASSIGN_OR_RETURN(
          outcome.wrong,
          gloo_impl::CountWrong(step, r, n, call.recv, layout.recv_count));
    }
  }
  return outcome;
}

absl::StatusOr<std::vector<double>> GlooCommunicator::AgreeMax(
    const std::vector<double>& values, const RunOptions& options) {
  FP_RETURN_IF_ERROR(CheckAgreeMaxArgs(values, options));
  if (broken_.load()) return BrokenError("AgreeMax");
  absl::StatusOr<std::vector<double>> agreed = RunAgreeMax(values, options);
  if (!agreed.ok()) return Fail(agreed.status());
  if (aborted_.load()) return Fail(absl::AbortedError("aborted"));
  return agreed;
}

absl::StatusOr<std::vector<double>> GlooCommunicator::RunAgreeMax(
    const std::vector<double>& values, const RunOptions& options) {
  FP_RETURN_IF_ERROR(CheckCancelled(options));
  std::vector<double> agreed = values;
  const std::chrono::milliseconds timeout = ToChronoTimeout(options.op_timeout);
  context_->setTimeout(timeout);
  FP_RETURN_IF_ERROR(gloo_impl::RunGlooMaxAllreduce(
      context_, agreed.data(), agreed.size(), timeout, next_tag_++));
  return agreed;
}

absl::Status GlooCommunicator::Fail(absl::Status status) {
  broken_.store(true);
  CloseTransport();
  if (aborted_.load() && !absl::IsAborted(status)) {
    return absl::AbortedError(
        absl::StrCat("communicator aborted (", status.message(), ")"));
  }
  return status;
}

void GlooCommunicator::Abort() {
  aborted_.store(true);
  broken_.store(true);
  CloseTransport();
  // Closed pairs no longer read into or write from the buffers, so the
  // waits on transfers that were in flight can end now.
  context_->AbortWaits();
}

// Gloo 0.5 has no public "abort the context" call. Pair::close() closes the
// socket (peers then fail fast with a reset connection) but does not wake
// local threads waiting on the pair's pending operations. setSync() on a
// closed pair makes Gloo run its own error path (signalException "Socket
// unexpectedly closed"), which hands an IoException to every pending send and
// receive of the pair -- the same path a socket error takes -- and then
// throws it here. This misses transfers already in flight (a send queued on
// a full socket, a receive half read): Gloo does not signal those, so
// Abort() ends their waits through the context (AbortWaits). Every call is
// guarded: Gloo may throw here
// (e.g. when the pair already failed) and nothing may escape.
void GlooCommunicator::CloseTransport() {
  std::lock_guard<std::mutex> lock(close_mu_);
  for (int i = 0; i < context_->size; ++i) {
    if (i == context_->rank) continue;
    ::gloo::transport::Pair* pair = nullptr;
    try {
      pair = context_->getPair(i).get();
    } catch (...) {
      continue;
    }
    if (pair == nullptr) continue;
    try {
      pair->close();
    } catch (...) {
    }
    try {
      pair->setSync(true, false);
    } catch (...) {
    }
  }
}

}  // namespace fabricpulse::backend
