// When the coordinator isolates by itself (a plan's isolate_on,
// coordinator_config.h): the rule, pure, and what a sweep's end tells it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "daemon/core/coordinator_config.h"

namespace fabricpulse::coordinator {

// The one op and size an isolation measures.
struct IsolationStep {
  std::string op;
  uint64_t bytes = 0;
  bool in_place = false;
};

// A sweep as it ended (SweepOrchestrator::Execute's end hook).
struct SweepEnd {
  std::string sweep_id;
  std::string plan;     // kAdhocPlan for a sweep without a plan
  std::string trigger;  // "cli", "schedule:<name>", "isolation:<id>"
  absl::Status status;  // its outcome
  std::vector<std::string> nodes;
  // The first step judged regressed; nullopt when none was.
  std::optional<IsolationStep> regressed;
  // The step that was running when the sweep failed (the first without a
  // result), when it is a collective's.
  std::optional<IsolationStep> failed;
  // The largest size of the plan's first collective op (not pairwise).
  std::optional<IsolationStep> largest;
};

struct IsolationStart {
  std::string cause;  // "regression" or "failure"
  IsolationStep step;
};

// Whether `end`, a sweep of a plan that asks `isolate_on`, starts an
// isolation: never for an isolation's own sweeps, a sweep on fewer than 2
// nodes, or a plan that does not ask. On a failure (outcome failed, not a
// cancelled client, an abort or a yield to busy GPUs) when the plan asks
// for failure: the failed step, else the largest; on a regressed step (of
// a succeeded or failed sweep) when it asks for regression: that step.
// Failure wins when both apply.
std::optional<IsolationStart> IsolationStartFor(const SweepEnd& end,
                                                const core::IsolateOn& on);

}  // namespace fabricpulse::coordinator
