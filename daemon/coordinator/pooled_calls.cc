#include "daemon/coordinator/pooled_calls.h"

#include <algorithm>
#include <utility>

#include "daemon/common/grpc_status.h"

namespace fabricpulse::coordinator {
namespace {

// Holds the caller's place until gRPC is done with the call.
class PooledReactor final : public grpc::ServerUnaryReactor {
 public:
  explicit PooledReactor(security::CallSlot slot) : slot_(std::move(slot)) {}
  void OnDone() override { delete this; }

 private:
  security::CallSlot slot_;
};

}  // namespace

PooledCalls::PooledCalls(int threads, security::CallLimiter::Limits limits)
    : limiter_(limits) {
  const int n = std::max(threads, 1);
  threads_.reserve(n);
  for (int i = 0; i < n; ++i) threads_.emplace_back([this] { Run(); });
}

PooledCalls::~PooledCalls() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  for (std::thread& t : threads_) t.join();
}

grpc::ServerUnaryReactor* PooledCalls::Serve(
    grpc::CallbackServerContext* context, std::function<grpc::Status()> body) {
  absl::StatusOr<security::CallSlot> slot = limiter_.Acquire(*context);
  if (!slot.ok()) return common::FinishNow(context, slot.status());
  auto* reactor = new PooledReactor(*std::move(slot));
  absl::MutexLock lock(&mu_);
  queue_.push_back(
      [reactor, body = std::move(body)] { reactor->Finish(body()); });
  return reactor;
}

void PooledCalls::Run() {
  while (true) {
    std::function<void()> task;
    {
      absl::MutexLock lock(&mu_);
      auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return stopping_ || !queue_.empty();
      };
      mu_.Await(absl::Condition(&ready));
      if (queue_.empty()) return;  // stopping, and nothing left to run
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    task();
  }
}

}  // namespace fabricpulse::coordinator
