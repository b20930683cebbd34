// The straggler signal: a rank that consistently enters the collective last,
// by a margin (slow, not hung).
//
// In a synchronous collective every rank waits for the last one to arrive,
// so per-rank durations cannot name a straggler: the late rank records the
// shortest time. Each rank therefore stamps when it entered each timed op,
// from a start the ranks share (core::MergedStep::last_arrival_rank and
// arrival_lateness_seconds), and the rank that arrives last by a margin in
// most steps is the straggler.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "daemon/core/step_merge.h"

namespace fabricpulse::core {

struct StragglerOptions {
  // Steps with arrival times needed before anything is said.
  int min_steps = 4;
  // Share of those steps in which the same rank must arrive late.
  double min_share = 0.75;
  // A step's last rank is late when it arrived at least this long after the
  // median rank AND that lateness is at least this share of the step's
  // time. The floors keep the ordinary spread of arrivals (a ring's
  // completion order, a barrier's exit order: microseconds) silent.
  double min_lateness_seconds = 200e-6;
  double min_fraction = 0.25;
};

struct Straggler {
  int rank = -1;
  int late_steps = 0;            // steps in which it arrived late
  int steps = 0;                 // steps with arrival times
  double mean_lateness = 0;      // seconds after the median rank
  double mean_fraction = 0;      // lateness / step time
  std::string Describe() const;  // "rank 3 entered the collective last ..."
};

// The rank that arrived late in this step by the margins of `options`;
// nullopt when none (or when the step carries no arrival times).
std::optional<int> LateRank(const MergedStep& step,
                            const StragglerOptions& options = {});

// The rank that arrived late (see StragglerOptions) in at least min_share
// of the steps that carry arrival times; nullopt when none, or when fewer
// than min_steps steps carry them.
std::optional<Straggler> FindStraggler(const std::vector<MergedStep>& steps,
                                       const StragglerOptions& options = {});

}  // namespace fabricpulse::core
