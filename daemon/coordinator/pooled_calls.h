// The coordinator's readers' and operators' calls (everything but the
// agents' own): served on gRPC's callback API, their work run by a fixed
// pool of threads in arrival order, each identity with at most a few calls
// admitted at once. A flood from one certificate then costs the others
// nothing but a short wait: no thread is created per call (gRPC's
// synchronous pool made one per call in flight, 999 under a 1,000-call
// flood) and no call of another identity is refused (a thread quota on
// that pool refused whoever came next).
#pragma once

#include <deque>
#include <functional>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "daemon/security/call_limiter.h"
#include "grpcpp/grpcpp.h"
#include "grpcpp/support/server_callback.h"

namespace fabricpulse::coordinator {

class PooledCalls {
 public:
  // `threads` (at least 1) run the calls' work; `limits` admits them.
  PooledCalls(int threads, security::CallLimiter::Limits limits);
  // Runs what is queued, then joins the threads: destroy it only after
  // the server has shut down (no new call can arrive).
  ~PooledCalls();
  PooledCalls(const PooledCalls&) = delete;
  PooledCalls& operator=(const PooledCalls&) = delete;

  // Serves one unary call: `body` fills the call's response and returns
  // its status, on a pool thread. The caller's place (CallLimiter) is held
  // from now until gRPC is done with the call (its answer sent, or the
  // call cancelled), so answers a slow client has not read yet count too.
  // A caller past its bound is answered RESOURCE_EXHAUSTED at once.
  grpc::ServerUnaryReactor* Serve(grpc::CallbackServerContext* context,
                                  std::function<grpc::Status()> body);

  const security::CallLimiter& limiter() const { return limiter_; }

 private:
  void Run();

  security::CallLimiter limiter_;
  absl::Mutex mu_;
  std::deque<std::function<void()>> queue_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::thread> threads_;
};

}  // namespace fabricpulse::coordinator
