// One RunSweep call on gRPC's callback API: the sweep runs on a thread of
// its own (it lasts as long as the sweep), its events are queued and written
// one at a time (the next in OnWriteDone), and a client that goes away
// cancels the sweep at once. No gRPC thread ever blocks on a sweep.
#pragma once

#include <deque>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "daemon/coordinator/sweep_orchestrator.h"
#include "fabricpulse/v1/coordinator.pb.h"
#include "grpcpp/grpcpp.h"
#include "grpcpp/support/server_callback.h"

namespace fabricpulse::coordinator {

// Counts the threads of running RunSweep calls, so that shutdown can wait
// for them before the orchestrator goes. Thread-safe.
class SweepThreads {
 public:
  void Enter();
  void Leave();
  // Waits up to `timeout` for every thread to leave; whether they did.
  bool WaitIdle(absl::Duration timeout);

 private:
  absl::Mutex mu_;
  int running_ ABSL_GUARDED_BY(mu_) = 0;
};

class SweepStream final : public grpc::ServerWriteReactor<v1::SweepEvent> {
 public:
  // Starts the call's sweep. `orchestrator` and `threads` outlive the call.
  static SweepStream* Start(SweepOrchestrator* orchestrator,
                            SweepThreads* threads,
                            const v1::SweepRequest& request);

  void OnWriteDone(bool ok) override;
  void OnCancel() override;
  void OnDone() override;

 private:
  // At most this many events wait for the client; the sweep then waits for
  // it, at most kStallLimit, before it is treated as gone.
  static constexpr size_t kMaxQueued = 256;
  static constexpr absl::Duration kStallLimit = absl::Seconds(30);

  explicit SweepStream(SweepOrchestrator* orchestrator)
      : orchestrator_(orchestrator) {}
  // The sweep's sink (on the sweep's thread): false once the client is gone.
  bool Push(const v1::SweepEvent& event);
  // The sweep returned (on its thread); the call finishes once the queue is
  // written.
  void Finished(const absl::Status& status);
  void WriteNextLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void FinishIfDoneLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  SweepOrchestrator* const orchestrator_;
  // Keeps this object alive until both OnDone and the sweep's thread end.
  std::shared_ptr<SweepStream> self_;
  absl::Mutex mu_;
  std::deque<v1::SweepEvent> queue_ ABSL_GUARDED_BY(mu_);
  v1::SweepEvent writing_event_ ABSL_GUARDED_BY(mu_);
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
  bool gone_ ABSL_GUARDED_BY(mu_) = false;  // cancelled, or a write failed
  bool returned_ ABSL_GUARDED_BY(mu_) = false;
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
  absl::Status status_ ABSL_GUARDED_BY(mu_);
  std::string sweep_id_ ABSL_GUARDED_BY(mu_);
};

}  // namespace fabricpulse::coordinator
