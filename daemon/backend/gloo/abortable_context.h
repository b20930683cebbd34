// A Gloo context whose waits an abort can end, including waits on transfers
// that are already on the wire.
//
// Gloo 0.5 fails the pending operations of a pair when the pair fails or is
// closed, but not a transfer already in flight: a send whose bytes sit on a
// full socket, or a receive that is half read. Their waiter sleeps until the
// op's timeout (GlooCommunicator::Abort could not wake it, and the agent
// killed the worker 2 s after an abort, as if it were stuck). Every Gloo
// collective gets its unbound buffers from the context, so this context
// hands out buffers it keeps a list of, and AbortWaits() ends every wait on
// them through Gloo's own UnboundBuffer::abortWaitSend/abortWaitRecv.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <unordered_set>

#include "gloo/rendezvous/context.h"
#include "gloo/transport/unbound_buffer.h"

namespace fabricpulse::backend::gloo_impl {

// The live unbound buffers of one context. Thread-safe.
class UnboundBufferTracker {
 public:
  void Add(::gloo::transport::UnboundBuffer* buffer);
  void Remove(::gloo::transport::UnboundBuffer* buffer);
  // From now on every wait returns false (aborted) at once; wakes the waits
  // in progress. Idempotent.
  void AbortAll();
  bool aborted() const { return aborted_.load(); }
  size_t live() const;

 private:
  mutable std::mutex mu_;
  std::unordered_set<::gloo::transport::UnboundBuffer*> live_;
  std::atomic<bool> aborted_{false};
};

class AbortableContext : public ::gloo::rendezvous::Context {
 public:
  AbortableContext(int rank, int size);

  // Call once, after connectFullMesh: from then on the unbound buffers of
  // every collective on this context are tracked. Throws (Gloo's
  // EnforceNotMet) when the context is not connected.
  void TrackUnboundBuffers();

  // Ends every wait on this context's unbound buffers, now and later: the
  // wait returns false, which Gloo's collectives take as "go on", so they
  // reach their next send or receive, which throws on the closed pairs.
  // Call after closing the pairs (GlooCommunicator::Abort does). Never
  // blocks long; thread-safe; idempotent.
  void AbortWaits();

  // Unbound buffers alive now (for tests).
  size_t live_buffers() const { return tracker_->live(); }

 private:
  const std::shared_ptr<UnboundBufferTracker> tracker_ =
      std::make_shared<UnboundBufferTracker>();
};

}  // namespace fabricpulse::backend::gloo_impl
