// A sweep run on a thread, for tests that inject a fault while it runs.
#pragma once

#include <string>
#include <thread>

#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "fabricpulse/v1/coordinator.grpc.pb.h"
#include "tests/integration/test_support.h"

namespace fabricpulse::testing {

// Runs `spec` on a thread; WaitStarted() returns once `results` result rows
// came (0: once the sweep started; kCommReady: once its communicator is
// ready, i.e. the ranks are in their first step), or the sweep ended first.
class BackgroundSweep {
 public:
  static constexpr int kCommReady = -1;
  BackgroundSweep(v1::CoordinatorService::Stub& stub, v1::SweepSpec spec,
                  int results);
  ~BackgroundSweep();  // joins
  bool WaitStarted();
  SweepOutcome Join();
  // When the sweep's stream ended (valid after Join).
  absl::Time ended() const { return ended_; }
  // Set before WaitStarted() returns true for a started sweep.
  const std::string& sweep_id() const { return sweep_id_; }
  const std::string& comm_id() const { return comm_id_; }

 private:
  absl::Notification started_;
  SweepOutcome outcome_;
  absl::Time ended_;
  std::string sweep_id_;
  std::string comm_id_;
  std::thread thread_;
};

}  // namespace fabricpulse::testing
