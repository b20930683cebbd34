// Merging per-rank timings of one step into the collective's result.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "daemon/core/sweep_spec.h"

namespace fabricpulse::core {

struct RankStepTiming {
  int rank = 0;
  double mean_seconds = 0;
  // Absent when the rank did not time its iterations one by one.
  std::optional<double> p50_seconds;
  std::optional<double> p99_seconds;
  int64_t wrong = 0;
  // Whether the rank checked its data (else `wrong` says nothing).
  bool checked = true;
  // Mean time from the step's shared start to this rank's entry into each
  // timed op; absent when not measured.
  std::optional<double> arrival_seconds;
  // Timed iterations the rank ran.
  int iterations = 0;
};

struct MergedStep {
  Step step;
  // The collective ends when its last rank ends: the slowest rank's mean.
  double time_seconds = 0;
  double algbw = 0;     // bytes per second
  double busbw = 0;     // bytes per second
  int64_t wrong = 0;    // summed over every rank
  bool checked = true;  // every rank checked its data
  // Ranks with a nonzero wrong count, by rank: the kMaxWrongRanksPerStep
  // (limits.h) with the most (ties: the lower rank), so at most that many
  // entries; `wrong` counts the others too.
  std::map<int, int64_t> wrong_by_rank;
  int slowest_rank = 0;
  double min_rank_time_seconds = 0;
  double max_rank_time_seconds = 0;
  // The mean of the ranks' mean times: nccl-tests' default time (its `-a 1`,
  // average across ranks). Reported beside the slowest rank's time, which
  // the bandwidths and the regression verdicts use.
  double mean_rank_time_seconds = 0;
  // Timed iterations every rank ran: the ranks of a collective run the
  // same count (adaptive mode agrees on it); should they differ, the
  // largest, and iterations_agree is false (a rank reporting 0, which does
  // not say, is left out).
  int iterations = 0;
  bool iterations_agree = true;
  // The slowest rank's p50 and the largest p99 over ranks; absent unless
  // every rank measured them.
  std::optional<double> p50_seconds;
  std::optional<double> p99_seconds;
  // The rank whose mean arrival was the latest, and how much later it was
  // than the median rank's (nearest rank); absent unless every rank reported
  // its arrival.
  std::optional<int> last_arrival_rank;
  std::optional<double> arrival_lateness_seconds;
  // The spread of the other ranks' arrivals: the latest of them minus the
  // median (0 with two ranks), and how many ranks reported arrivals; set
  // with last_arrival_rank when merged from the ranks' timings (absent in a
  // step read back from a result, which does not carry them).
  std::optional<double> arrival_spread_seconds;
  int arrival_ranks = 0;
};

// Requires a non-empty `ranks`. algbw = bytes / time; busbw = algbw x the
// op's factor for `nranks`.
MergedStep MergeStep(const Step& step, const std::vector<RankStepTiming>& ranks,
                     int nranks);

}  // namespace fabricpulse::core
