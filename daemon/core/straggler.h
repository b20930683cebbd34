// The straggler signal: a rank that consistently enters the collective last,
// by a margin (slow, not hung).
//
// In a synchronous collective every rank waits for the last one to arrive,
// so per-rank durations cannot name a straggler: the late rank records the
// shortest time. Each rank therefore stamps when it entered each timed op,
// from a start the ranks share (core::MergedStep::last_arrival_rank and
// arrival_lateness_seconds), and the rank that arrives last by a margin far
// more often than chance is the straggler.
//
// What the stamps see: on Gloo, when the rank's host thread entered the op;
// on NCCL, when the host enqueued it (the GPU's own start is not stamped),
// so a rank whose host is late is seen, a GPU that starts late is not.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "daemon/core/step_merge.h"

namespace fabricpulse::core {

struct StragglerOptions {
  // Steps with arrival times needed before anything is said.
  int min_steps = 4;
  // A step's last rank is late when it arrived at least
  // min_lateness_seconds after the median rank, by at least spread_factor x
  // the spread of the other ranks' arrivals (it stands apart from the
  // pack, whatever the pack's own jitter), and by at least min_fraction of
  // the step's time. The floors keep the ordinary spread of arrivals (a
  // ring's completion order, a barrier's exit order: microseconds) silent.
  double min_lateness_seconds = 200e-6;
  double spread_factor = 3;
  double min_fraction = 0.05;
  // The sweep's straggler: late in at least min_share of the steps with
  // arrival times, and so often that chance explains it with probability
  // at most max_chance: were each step's last rank drawn at random from the
  // n ranks (and always late), the probability that one of them is last in
  // that many steps (n x the binomial tail at 1/n).
  double min_share = 0.5;
  double max_chance = 0.05;
};

struct Straggler {
  int rank = -1;
  int late_steps = 0;            // steps in which it arrived late
  int steps = 0;                 // steps with arrival times
  double mean_lateness = 0;      // seconds after the median rank
  double mean_fraction = 0;      // lateness / step time
  double chance = 1;             // see StragglerOptions::max_chance
  std::string Describe() const;  // "rank 3 entered the collective last ..."
};

// The rank that arrived late in this step by the margins of `options`;
// nullopt when none (or when the step carries no arrival times). A step
// read back from a result (no spread) is judged by the floors alone.
std::optional<int> LateRank(const MergedStep& step,
                            const StragglerOptions& options = {});

// The probability that Binomial(trials, p) is at least `k`.
double BinomialTail(int k, int trials, double p);

// The straggler of `steps` (see StragglerOptions); nullopt when none, or
// when fewer than min_steps steps carry arrival times.
std::optional<Straggler> FindStraggler(const std::vector<MergedStep>& steps,
                                       const StragglerOptions& options = {});

}  // namespace fabricpulse::core
