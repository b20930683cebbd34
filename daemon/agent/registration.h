// Keeps the agent registered with the coordinator: registers, heartbeats,
// and registers again when the coordinator forgot it (restart) or was
// unreachable.
//
// Every registration carries this process's instance id (random, new on
// each start) and the machine's boot id, so that the coordinator can tell a
// restart of this agent from a second agent with the same node name. A
// refused registration (another live agent holds the node name, a bound is
// reached, a field is out of bounds) is logged once, with the coordinator's
// reason, and retried with backoff (1 s doubling to 5 s) until accepted;
// an unreachable coordinator is retried every 500 ms.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "daemon/agent/coordinator_client.h"
#include "daemon/agent/coordinator_contact.h"
#include "daemon/core/clock.h"
#include "fabricpulse/v1/coordinator.pb.h"

namespace fabricpulse::agent {

// Who registers: this process and the machine's boot.
struct AgentInstance {
  std::string instance_id;  // random hex, new per process
  std::string boot_id;      // /proc/sys/kernel/random/boot_id, "" unknown
  // A fresh instance id and this machine's boot id.
  static AgentInstance ThisProcess();
};

// Thread-safe. Runs one background thread between Start() and Stop().
class Registration {
 public:
  // `describe` gives the agent's current description (with workers), for
  // each registration; `fill_heartbeat` adds to each heartbeat the workers
  // as that description would have them, and the machine's NICs.
  // Every answered exchange is reported to `contact`; `contact` and `clock`
  // outlive this object.
  Registration(std::unique_ptr<CoordinatorClient> coordinator,
               std::function<v1::AgentInfo()> describe,
               std::function<void(v1::HeartbeatRequest&)> fill_heartbeat,
               CoordinatorContact* contact,
               core::Clock* clock = core::RealClock::Get(),
               AgentInstance instance = AgentInstance::ThisProcess());
  ~Registration();  // Stop()

  // Called on the registration thread after every exchange with the
  // coordinator: the heartbeat's answer, or nullptr when none came (a
  // registration, an unreachable or forgetful coordinator). Set before
  // Start().
  void SetExchangeObserver(
      std::function<void(const v1::HeartbeatResponse*)> observer) {
    observer_ = std::move(observer);
  }

  void Start();
  void Stop();  // idempotent
  // Sends a heartbeat now (e.g. a worker became ready or died), so the
  // coordinator's view is current without waiting a whole interval.
  void Nudge();
  // True once registered (and not since told to re-register).
  bool registered() const;
  // Waits until registered; false on timeout.
  bool WaitRegistered(absl::Duration timeout) const;
  const AgentInstance& instance() const { return instance_; }

 private:
  void Run();
  // Registers; on failure returns how long to wait before the next try.
  std::optional<absl::Duration> RegisterOnce();
  // Returns false when the coordinator no longer knows us.
  bool HeartbeatOnce();

  const std::function<v1::AgentInfo()> describe_;
  const std::function<void(v1::HeartbeatRequest&)> fill_heartbeat_;
  std::function<void(const v1::HeartbeatResponse*)> observer_;
  CoordinatorContact* const contact_;
  const std::unique_ptr<CoordinatorClient> coordinator_;
  core::Clock* const clock_;
  const AgentInstance instance_;
  // Refusals in a row (not counting an unreachable coordinator): logged at
  // the first, backed off by the count; reset when registered.
  int refusals_ = 0;  // registration thread only
  mutable absl::Mutex mu_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  bool nudged_ ABSL_GUARDED_BY(mu_) = false;
  std::string agent_id_ ABSL_GUARDED_BY(mu_);
  absl::Duration interval_ ABSL_GUARDED_BY(mu_) = absl::Seconds(1);
  std::thread thread_;
};

}  // namespace fabricpulse::agent
