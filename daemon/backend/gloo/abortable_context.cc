#include "daemon/backend/gloo/abortable_context.h"

#include <utility>
#include <vector>

#include "gloo/common/logging.h"
#include "gloo/transport/context.h"

namespace fabricpulse::backend::gloo_impl {
namespace {

using ::gloo::transport::UnboundBuffer;

// Gloo's unbound buffer, registered with the tracker while it lives. A wait
// after the abort returns false without touching Gloo: a collective that
// waits twice on one buffer (gather's root) would otherwise sleep again.
class TrackedUnboundBuffer final : public UnboundBuffer {
 public:
  TrackedUnboundBuffer(std::unique_ptr<UnboundBuffer> inner,
                       std::shared_ptr<UnboundBufferTracker> tracker)
      : UnboundBuffer(inner->ptr, inner->size),
        inner_(std::move(inner)),
        tracker_(std::move(tracker)) {
    tracker_->Add(inner_.get());
  }
  ~TrackedUnboundBuffer() override { tracker_->Remove(inner_.get()); }

  bool waitRecv(int* rank, std::chrono::milliseconds timeout) override {
    if (tracker_->aborted()) return false;
    return inner_->waitRecv(rank, timeout);
  }
  bool waitSend(int* rank, std::chrono::milliseconds timeout) override {
    if (tracker_->aborted()) return false;
    return inner_->waitSend(rank, timeout);
  }
  void abortWaitRecv() override { inner_->abortWaitRecv(); }
  void abortWaitSend() override { inner_->abortWaitSend(); }
  void send(int dst_rank, uint64_t slot, size_t offset,
            size_t nbytes) override {
    inner_->send(dst_rank, slot, offset, nbytes);
  }
  void recv(int src_rank, uint64_t slot, size_t offset,
            size_t nbytes) override {
    inner_->recv(src_rank, slot, offset, nbytes);
  }
  void recv(std::vector<int> src_ranks, uint64_t slot, size_t offset,
            size_t nbytes) override {
    inner_->recv(std::move(src_ranks), slot, offset, nbytes);
  }

 private:
  const std::unique_ptr<UnboundBuffer> inner_;
  const std::shared_ptr<UnboundBufferTracker> tracker_;
};

// Gloo's TCP transport context with its unbound buffers tracked; pairs stay
// the inner context's (Gloo's TCP pairs expect their own buffer type, which
// the inner buffers are).
class TrackingTransportContext final : public ::gloo::transport::Context {
 public:
  TrackingTransportContext(std::shared_ptr<::gloo::transport::Context> inner,
                           std::shared_ptr<UnboundBufferTracker> tracker)
      : ::gloo::transport::Context(inner->rank, inner->size),
        inner_(std::move(inner)),
        tracker_(std::move(tracker)) {
    setTimeout(inner_->getTimeout());
  }

  std::unique_ptr<::gloo::transport::Pair>& getPair(int rank) override {
    return inner_->getPair(rank);
  }
  std::unique_ptr<::gloo::transport::Pair>& createPair(int rank) override {
    return inner_->createPair(rank);
  }
  std::unique_ptr<UnboundBuffer> createUnboundBuffer(void* ptr,
                                                     size_t size) override {
    return std::make_unique<TrackedUnboundBuffer>(
        inner_->createUnboundBuffer(ptr, size), tracker_);
  }

 private:
  const std::shared_ptr<::gloo::transport::Context> inner_;
  const std::shared_ptr<UnboundBufferTracker> tracker_;
};

}  // namespace

void UnboundBufferTracker::Add(UnboundBuffer* buffer) {
  std::lock_guard<std::mutex> lock(mu_);
  live_.insert(buffer);
  // A buffer made after the abort must not wait either.
  if (aborted_.load()) {
    buffer->abortWaitSend();
    buffer->abortWaitRecv();
  }
}

void UnboundBufferTracker::Remove(UnboundBuffer* buffer) {
  std::lock_guard<std::mutex> lock(mu_);
  live_.erase(buffer);
}

void UnboundBufferTracker::AbortAll() {
  // The flag first: a wait that starts after this point returns at once, and
  // one that started before is woken below (Gloo keeps the abort request
  // until a wait takes it, so a wait about to begin returns too).
  aborted_.store(true);
  std::lock_guard<std::mutex> lock(mu_);
  for (UnboundBuffer* buffer : live_) {
    buffer->abortWaitSend();
    buffer->abortWaitRecv();
  }
}

size_t UnboundBufferTracker::live() const {
  std::lock_guard<std::mutex> lock(mu_);
  return live_.size();
}

AbortableContext::AbortableContext(int rank, int size)
    : ::gloo::rendezvous::Context(rank, size) {}

void AbortableContext::TrackUnboundBuffers() {
  GLOO_ENFORCE(transportContext_, "TrackUnboundBuffers before connecting");
  transportContext_ = std::make_shared<TrackingTransportContext>(
      std::move(transportContext_), tracker_);
}

void AbortableContext::AbortWaits() { tracker_->AbortAll(); }

}  // namespace fabricpulse::backend::gloo_impl
