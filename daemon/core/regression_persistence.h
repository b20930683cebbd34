// When a regression is confirmed, so that an alert does not page for one
// noisy sweep (issue 29, item 3). Every step of a sweep is judged alone
// (core/regression.h), the smallest on a handful of iterations, so a single
// regressed step is a suspect. It is confirmed when it persists:
//  - over time: the same step (plan, op, dtype, size, placement, ranks)
//    also regressed in the plan's previous succeeded sweep; or
//  - over sizes: it is one of a run of at least kNeighbourRun consecutive
//    sizes of the same op, dtype and placement that all regressed in this
//    sweep (a degraded link slows a range of sizes, noise picks sizes at
//    random).
// A step that does not regress is never confirmed, so the confirmed series
// resolves on the first sweep that passes. Pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fabricpulse::core {

// Consecutive regressed sizes that confirm one another.
inline constexpr int kNeighbourRun = 3;

struct StepRegression {
  // Steps with the same series are sizes of one curve (op, dtype,
  // placement); neighbours are next to each other in bytes.
  std::string series;
  uint64_t bytes = 0;
  bool regression = false;
  // The same step regressed in the plan's previous succeeded sweep.
  bool previously_regressed = false;
};

// One flag per step, in the order given.
std::vector<bool> ConfirmRegressions(const std::vector<StepRegression>& steps);

}  // namespace fabricpulse::core
