// How one group sweep of a campaign ended, as the campaign needs it
// (core/campaign.h): the judged step's busbw from the sweep's events, and
// whether the sweep was held back by a busy node (retried later) or ran to
// a result (good, bad or failed).
//
// The judged step: `judge_op`'s largest size; out-of-place where both
// placements ran. A sweep that succeeded without that step has no busbw
// (NaN: not measured, which the verdict rules count as bad). Any step with
// wrong data marks the measurement data_wrong.
//
// Thread-safety: thread-compatible.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "daemon/core/campaign.h"
#include "fabricpulse/v1/coordinator.pb.h"

namespace fabricpulse::coordinator {

class GroupOutcome {
 public:
  // `members`: the group's agents as described before its sweep; their
  // ranks give the path and the GPU model that `thresholds` match on.
  GroupOutcome(std::string judge_op,
               const std::vector<v1::AgentInfo>& members = {});

  // Takes one event of the group's sweep (a SweepSink); always true.
  bool Take(const v1::SweepEvent& event);

  // Whether the sweep's result means "try again later" rather than a
  // measurement: RESOURCE_EXHAUSTED before it started (a member busy with
  // another sweep, or a busy GPU) or a sweep preempted by a foreign GPU
  // process.
  static bool HeldBack(const absl::Status& status);

  // The measurement, given Execute's result and the time it ended.
  core::GroupMeasurement Measurement(const absl::Status& status,
                                     absl::Time at) const;

 private:
  std::string judge_op_;
  std::string path_;       // core::PathClassName of the members' slowest
  std::string gpu_model_;  // the members' first GPU model; "" CPU ranks
  std::string sweep_id_;
  bool data_wrong_ = false;
  bool found_ = false;
  uint64_t bytes_ = 0;
  bool in_place_ = false;
  double busbw_ = 0;
};

}  // namespace fabricpulse::coordinator
