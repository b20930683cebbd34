// `fabricpulse compare A B`: two stored sweeps side by side, per op, size,
// placement, dtype and redop; pure functions over their GetSweep answers.
//
// Per matched row the figure compared is the bandwidth the row reports:
// busbw where both have one, else algbw (one rank: busbw is 0), else the
// inverse of the time. ratio = B / A (> 1: B is faster). A row differs
// beyond noise when |ratio - 1| exceeds both the threshold and the rows'
// own spread: the larger of the two sweeps' (p99 - p50) / p50 for that row,
// where percentiles were measured (absent, e.g. --graph or
// FABRICPULSE_ITER_EVENTS=0: the threshold alone decides, and the row says
// so). Thread-safety: pure functions.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "client/output/output_options.h"
#include "fabricpulse/v1/coordinator.pb.h"

namespace fabricpulse::client {

inline constexpr double kDefaultCompareThreshold = 0.05;

enum class CompareVerdict { kSame, kSlower, kFaster };

struct CompareRow {
  std::string op;
  uint64_t bytes = 0;
  bool in_place = false;
  std::string dtype;
  std::string redop;
  // "busbw", "algbw" or "1/time": what a and b are.
  std::string figure;
  double a = 0;  // bytes per second (or 1/seconds for "1/time")
  double b = 0;
  double ratio = 0;              // b / a
  std::optional<double> spread;  // relative; nullopt: not measured
  CompareVerdict verdict = CompareVerdict::kSame;
};

struct SweepComparison {
  v1::SweepSummary a;
  v1::SweepSummary b;
  double threshold = kDefaultCompareThreshold;
  std::vector<CompareRow> rows;  // in A's order
  int only_in_a = 0;             // rows of A with no match in B
  int only_in_b = 0;
  int slower = 0;
  int faster = 0;
};

// Matches the rows of `a` and `b` (first match of each key; a key repeated
// within a sweep is matched in order). `threshold` is relative (0.05: 5 %).
SweepComparison CompareSweeps(const v1::GetSweepResponse& a,
                              const v1::GetSweepResponse& b, double threshold);

// "same", "slower", "faster".
const char* VerdictName(CompareVerdict verdict);

// Table (nccl-tests-like, one row per match, a summary line) or JSON (one
// object: "a", "b", "threshold", "rows", "only_in_a", "only_in_b",
// "slower", "faster"). CSV: a header and one line per row.
void PrintComparison(const SweepComparison& comparison,
                     const OutputOptions& output, std::ostream& out);

}  // namespace fabricpulse::client
