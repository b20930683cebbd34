// A CoordinatorClient for unit tests of the agent's registration: it hands
// out agent ids, answers heartbeats (or NOT_FOUND once told to forget the
// agent, or UNAVAILABLE while "down"), and counts every call.
#pragma once

#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "daemon/agent/coordinator_client.h"

namespace fabricpulse::fakes {

// Thread-safe.
class FakeCoordinatorClient final : public agent::CoordinatorClient {
 public:
  void SetDown(bool down) {
    absl::MutexLock lock(&mu_);
    down_ = down;
  }
  // The next heartbeats answer NOT_FOUND (a restarted coordinator).
  void Forget() {
    absl::MutexLock lock(&mu_);
    known_id_.clear();
  }
  // The heartbeat interval the answers ask for.
  void SetInterval(double seconds) {
    absl::MutexLock lock(&mu_);
    interval_seconds_ = seconds;
  }
  void SetSweep(std::string sweep_id) {
    absl::MutexLock lock(&mu_);
    sweep_id_ = std::move(sweep_id);
  }
  // Registrations answer `refusal` (e.g. ALREADY_EXISTS) until it is OK.
  // The verdict each answered heartbeat carries (nullopt: none).
  void SetVerdict(std::optional<v1::NodeVerdictNotice> verdict) {
    absl::MutexLock lock(&mu_);
    verdict_ = std::move(verdict);
  }
  void RefuseRegistrations(absl::Status refusal) {
    absl::MutexLock lock(&mu_);
    refusal_ = std::move(refusal);
  }
  int registers() {
    absl::MutexLock lock(&mu_);
    return registers_;
  }
  // Register calls, refused ones included.
  int register_attempts() {
    absl::MutexLock lock(&mu_);
    return attempts_;
  }
  // Waits (real time, bounded) until `n` Register calls were made.
  bool WaitForAttempts(int n) {
    absl::MutexLock lock(&mu_);
    auto reached = [this, n]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return attempts_ >= n;
    };
    return mu_.AwaitWithTimeout(absl::Condition(&reached), absl::Seconds(10));
  }
  v1::RegisterRequest last_register() {
    absl::MutexLock lock(&mu_);
    return last_register_;
  }
  int heartbeats() {
    absl::MutexLock lock(&mu_);
    return heartbeats_;
  }
  // The last heartbeat answered.
  v1::HeartbeatRequest last_heartbeat() {
    absl::MutexLock lock(&mu_);
    return last_heartbeat_;
  }
  // Waits (real time, bounded) until `n` heartbeats were answered.
  bool WaitForHeartbeats(int n) {
    absl::MutexLock lock(&mu_);
    auto reached = [this, n]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return heartbeats_ >= n;
    };
    return mu_.AwaitWithTimeout(absl::Condition(&reached), absl::Seconds(10));
  }

  absl::StatusOr<v1::RegisterResponse> Register(
      const v1::RegisterRequest& request, absl::Duration timeout) override {
    absl::MutexLock lock(&mu_);
    if (down_) return absl::UnavailableError("connection refused");
    attempts_++;
    last_register_ = request;
    if (!refusal_.ok()) return refusal_;
    registers_++;
    known_id_ = absl::StrCat("agent-", registers_);
    v1::RegisterResponse response;
    response.set_agent_id(known_id_);
    response.set_membership_epoch(registers_);
    response.set_heartbeat_interval_seconds(interval_seconds_);
    return response;
  }

  absl::StatusOr<v1::HeartbeatResponse> Heartbeat(
      const v1::HeartbeatRequest& request, absl::Duration timeout) override {
    absl::MutexLock lock(&mu_);
    if (down_) return absl::UnavailableError("connection refused");
    if (request.agent_id() != known_id_) {
      return absl::NotFoundError("unknown agent id");
    }
    heartbeats_++;
    last_heartbeat_ = request;
    v1::HeartbeatResponse response;
    response.set_membership_epoch(registers_);
    response.set_sweep_id(sweep_id_);
    response.set_heartbeat_interval_seconds(interval_seconds_);
    if (verdict_) *response.mutable_node_verdict() = *verdict_;
    return response;
  }

 private:
  absl::Mutex mu_;
  bool down_ ABSL_GUARDED_BY(mu_) = false;
  std::string known_id_ ABSL_GUARDED_BY(mu_);
  std::string sweep_id_ ABSL_GUARDED_BY(mu_);
  std::optional<v1::NodeVerdictNotice> verdict_ ABSL_GUARDED_BY(mu_);
  int registers_ ABSL_GUARDED_BY(mu_) = 0;
  int attempts_ ABSL_GUARDED_BY(mu_) = 0;
  absl::Status refusal_ ABSL_GUARDED_BY(mu_);
  v1::RegisterRequest last_register_ ABSL_GUARDED_BY(mu_);
  int heartbeats_ ABSL_GUARDED_BY(mu_) = 0;
  v1::HeartbeatRequest last_heartbeat_ ABSL_GUARDED_BY(mu_);
  double interval_seconds_ ABSL_GUARDED_BY(mu_) = 1;
};

}  // namespace fabricpulse::fakes
