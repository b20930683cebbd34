// Keeps the agent registered with the coordinator: registers, heartbeats,
// and registers again when the coordinator forgot it (restart) or was
// unreachable.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "daemon/agent/coordinator_client.h"
#include "daemon/agent/coordinator_contact.h"
#include "daemon/core/clock.h"
#include "fabricpulse/v1/coordinator.pb.h"

namespace fabricpulse::agent {

// Thread-safe. Runs one background thread between Start() and Stop().
class Registration {
 public:
  // `describe` gives the agent's current description (with workers).
  // Every answered exchange is reported to `contact`; `contact` and `clock`
  // outlive this object.
  Registration(std::unique_ptr<CoordinatorClient> coordinator,
               std::function<v1::AgentInfo()> describe,
               CoordinatorContact* contact,
               core::Clock* clock = core::RealClock::Get());
  ~Registration();  // Stop()

  void Start();
  void Stop();  // idempotent
  // Sends a heartbeat now (e.g. a worker became ready or died), so the
  // coordinator's view is current without waiting a whole interval.
  void Nudge();
  // True once registered (and not since told to re-register).
  bool registered() const;
  // Waits until registered; false on timeout.
  bool WaitRegistered(absl::Duration timeout) const;

 private:
  void Run();
  bool RegisterOnce();
  // Returns false when the coordinator no longer knows us.
  bool HeartbeatOnce();

  const std::function<v1::AgentInfo()> describe_;
  CoordinatorContact* const contact_;
  const std::unique_ptr<CoordinatorClient> coordinator_;
  core::Clock* const clock_;
  mutable absl::Mutex mu_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  bool nudged_ ABSL_GUARDED_BY(mu_) = false;
  std::string agent_id_ ABSL_GUARDED_BY(mu_);
  absl::Duration interval_ ABSL_GUARDED_BY(mu_) = absl::Seconds(1);
  std::thread thread_;
};

}  // namespace fabricpulse::agent
