// Runs the expanded steps of one sweep on one rank's communicator.
#pragma once

#include <atomic>
#include <functional>
#include <vector>

#include "absl/status/status.h"
#include "daemon/backend/collective_backend.h"
#include "daemon/core/sweep_spec.h"
#include "daemon/worker/fault_injection.h"
#include "daemon/worker/flight_recorder.h"
#include "fabricpulse/v1/worker.pb.h"

namespace fabricpulse::worker {

// Called once per finished step; returns false when the receiver is gone
// (the sweep then stops with CANCELLED).
using StepSink = std::function<bool(const v1::StepRankEvent&)>;

// Where ExecuteSteps records each step (optional).
struct StepRecording {
  FlightRecorder* recorder = nullptr;
  std::string sweep_id;
  std::string comm_id;
};

// Reserves buffers for the largest step, then runs every step in order.
// `fault` delays this rank's entry into each timed op when it names the
// communicator's rank (tests of the straggler detector).
// Errors: those of Communicator::Reserve/RunStep, with the step named;
// ABORTED when `cancelled` is set; CANCELLED when the sink refuses.
absl::Status ExecuteSteps(backend::Communicator& comm,
                          const std::vector<core::Step>& steps,
                          const core::SweepSpec& spec,
                          const std::atomic<bool>& cancelled,
                          const StepSink& sink,
                          const StepRecording& recording = {},
                          const LateRankFault& fault = {});

}  // namespace fabricpulse::worker
