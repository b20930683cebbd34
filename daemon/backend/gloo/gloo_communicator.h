// A Communicator over a connected Gloo context (CPU, TCP).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "daemon/backend/collective_backend.h"
#include "daemon/backend/gloo/abortable_context.h"
#include "daemon/core/backend_support.h"
#include "daemon/core/sweep_spec.h"

namespace fabricpulse::backend {

// Host buffers larger than this are refused by Reserve (core's figure, so
// that --max-bytes auto stays under it).
inline constexpr uint64_t kGlooMaxReserveBytes = core::kGlooMaxBufferBytes;

// Runs steps as Gloo collectives on host memory. Made by
// GlooBackend::CreateCommunicator. Not thread-safe, except that Abort() and
// broken() may be called from any thread at any time.
class GlooCommunicator : public Communicator {
 public:
  // `context` must be fully connected (connectFullMesh returned) and track
  // its unbound buffers (TrackUnboundBuffers), so that Abort() can end
  // waits on transfers already in flight.
  explicit GlooCommunicator(
      std::shared_ptr<gloo_impl::AbortableContext> context);
  ~GlooCommunicator() override;

  GlooCommunicator(const GlooCommunicator&) = delete;
  GlooCommunicator& operator=(const GlooCommunicator&) = delete;

  int rank() const override;
  int nranks() const override;

  // Allocates (and touches) `max_bytes` of host memory for send and receive
  // buffers, replacing any earlier allocation. RunStep grows the buffers
  // itself if a step needs more. Errors: RESOURCE_EXHAUSTED above
  // kGlooMaxReserveBytes or when the allocation fails.
  absl::Status Reserve(uint64_t max_bytes) override;

  // Lays the step out with core::LayoutFor, fills the send region with
  // core::InputValue and poisons the receive region once, runs
  // options.warmup_iters untimed ops, a barrier, then options.iters ops
  // each timed with std::chrono::steady_clock (in-place steps overwrite
  // their input between iterations, as in nccl-tests). In adaptive mode the
  // timed ops run in batches (core::RunAdaptiveBatches), the confidence
  // interval over the per-iteration times, each batch followed by an
  // AgreeMax; arrival stamps count from the barrier's end. With options.check
  // it refills, runs once more and counts receive elements (where
  // core::HasCheckedOutput) outside core::Tolerance of core::ExpectedValue.
  // Every op and the barrier are bounded by options.op_timeout.
  // Errors: INVALID_ARGUMENT unsupported dtype (bfloat16, fp8), graph mode,
  // bad iteration counts, root, count or placement; DEADLINE_EXCEEDED an op
  // passed op_timeout; UNAVAILABLE a peer was lost; ABORTED options.cancelled
  // was set (checked between ops) or Abort() was called; RESOURCE_EXHAUSTED
  // buffers could not grow; FAILED_PRECONDITION the communicator was already
  // broken; INTERNAL Gloo reported a broken invariant. After any error the
  // communicator is broken and its connections are closed, so that peers
  // blocked on it fail fast (UNAVAILABLE) instead of waiting for their
  // timeout.
  absl::StatusOr<StepOutcome> RunStep(const core::Step& step,
                                      const RunOptions& options) override;

  void TrimBuffers(uint64_t keep_bytes) override;
  uint64_t buffer_bytes() const override;
  // gloo::allreduce with gloo::max<double> on a copy of `values`, on this
  // communicator's context and tag sequence. Errors: as the interface says;
  // INVALID_ARGUMENT also for a non-positive options.op_timeout.
  absl::StatusOr<std::vector<double>> AgreeMax(
      const std::vector<double>& values, const RunOptions& options) override;

  bool broken() const override;

  // Marks the communicator broken, closes every connection of the Gloo
  // context and ends every wait on its transfers (AbortableContext), so
  // that an op blocked in RunStep on another thread -- waiting for a peer,
  // or on a transfer already on the wire -- returns ABORTED promptly, and
  // peers see the connection reset (UNAVAILABLE). Never blocks long;
  // idempotent.
  void Abort() override;

 private:
  absl::Status ValidateStep(const core::Step& step,
                            const RunOptions& options) const;
  absl::Status EnsureCapacity(uint64_t bytes, uint64_t scratch_bytes);
  // Runs the step once the buffers are ready; errors not yet mapped.
  absl::StatusOr<StepOutcome> RunValidatedStep(const core::Step& step,
                                               const RunOptions& options);
  // Marks broken, closes the transport and maps `status` to ABORTED when
  // Abort() caused it.
  absl::Status Fail(absl::Status status);
  // The status of RunStep/AgreeMax on a broken communicator.
  absl::Status BrokenError(absl::string_view what) const;
  // AgreeMax without the argument checks and without Fail.
  absl::StatusOr<std::vector<double>> RunAgreeMax(
      const std::vector<double>& values, const RunOptions& options);
  absl::Status CheckCancelled(const RunOptions& options) const;
  void CloseTransport();

  const std::shared_ptr<gloo_impl::AbortableContext> context_;
  // Send/receive arena and reduce_scatter scratch; 8-byte aligned words.
  std::vector<uint64_t> buffer_;
  std::vector<uint64_t> scratch_;
  uint32_t next_tag_ = 0;
  std::atomic<bool> broken_{false};
  std::atomic<bool> aborted_{false};
  // Serializes CloseTransport between Abort() and the RunStep thread.
  std::mutex close_mu_;
};

}  // namespace fabricpulse::backend
