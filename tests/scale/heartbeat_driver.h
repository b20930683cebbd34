// Keeps every simulated agent of a fleet_sim process registered with the
// coordinator, as the real agent's Registration does for one: registers,
// heartbeats at the interval the coordinator returns, registers again on
// NOT_FOUND (or after a failed registration). One thread schedules the
// exchanges of all agents; they run as gRPC callback calls, at most
// `max_in_flight` at a time, each agent on its own channel (own TCP
// connection, as separate hosts would have).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "fabricpulse/v1/coordinator.grpc.pb.h"
#include "tests/scale/sim_agent.h"

namespace fabricpulse::scale {

// Thread-safe.
class HeartbeatDriver {
 public:
  // `agents` (started, so their addresses are known) outlive the driver.
  // `shared_connection`: every agent's calls go over one plaintext
  // connection (a coordinator's open-file limit below 2 per agent; the
  // agents must be plaintext).
  HeartbeatDriver(const std::string& coordinator, std::vector<SimAgent*> agents,
                  int max_in_flight, bool shared_connection = false);
  ~HeartbeatDriver();  // Stop()

  void Start();
  // Stops scheduling, cancels the exchanges in flight and waits for them
  // (bounded by their 5 s deadline). Idempotent.
  void Stop();

  // The agents at these indexes (of the constructor's list) send their
  // next heartbeat (or registration) at once, e.g. after their GPUs turned
  // busy or free; one already in flight is not repeated.
  void BeatSoon(const std::vector<size_t>& agents);

  // Agents registered now (not since told to register again).
  int registered() const;
  // Waits until every agent is registered; false on timeout or Stop().
  bool WaitAllRegistered(absl::Duration timeout) const;
  // Exchanges answered / failed since Start (for the log).
  uint64_t answered() const;
  uint64_t failed() const;

 private:
  struct Slot {
    SimAgent* agent = nullptr;
    std::unique_ptr<v1::CoordinatorService::Stub> stub;
    std::string agent_id;  // empty: (re-)register next
    absl::Time due;
    absl::Duration interval = absl::Seconds(1);
    bool in_flight = false;
    // BeatSoon() came while in flight: the next exchange goes at once.
    bool soon = false;
    // The exchange in flight; replaced only when none is.
    std::unique_ptr<grpc::ClientContext> context;
    v1::RegisterRequest register_request;
    v1::RegisterResponse register_response;
    v1::HeartbeatRequest heartbeat_request;
    v1::HeartbeatResponse heartbeat_response;
  };

  void Run();
  // Prepares slot i's exchange under mu_ (marks it in flight); Issue()
  // starts it after unlocking. Returns whether it registers.
  bool Prepare(size_t i) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Issue(size_t i, bool registering);
  void Registered(size_t i, const grpc::Status& status);
  void HeartbeatDone(size_t i, const grpc::Status& status);
  // After an answer: a BeatSoon() that came while in flight is honoured.
  void DueAgainIfSoon(Slot& slot, absl::Time now)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Spreads agents' heartbeats over the interval, as independently started
  // hosts would: agent i's first one comes after (0.5 + 0.5 x frac(i x
  // golden ratio)) intervals.
  absl::Duration FirstBeat(size_t i, absl::Duration interval) const;

  mutable absl::Mutex mu_;
  // Sized once. A slot's fields are guarded by mu_, except while its
  // exchange is in flight: the exchange then owns context, requests and
  // responses until its callback.
  std::vector<Slot> slots_;
  const int max_in_flight_;
  int in_flight_ ABSL_GUARDED_BY(mu_) = 0;
  int registered_ ABSL_GUARDED_BY(mu_) = 0;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  bool started_ ABSL_GUARDED_BY(mu_) = false;
  uint64_t answered_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t failed_ ABSL_GUARDED_BY(mu_) = 0;
  // Bumped when Run() has something to do before its planned wake-up: an
  // agent to register again now, or a freed exchange while all were busy.
  uint64_t wake_ ABSL_GUARDED_BY(mu_) = 0;
  std::thread thread_;
};

}  // namespace fabricpulse::scale
