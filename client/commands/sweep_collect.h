// Runs one sweep to its end and keeps its results, for the commands that
// run sweeps of their own (matrix, isolate) rather than print them as they
// come.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "client/output/progress_line.h"
#include "daemon/core/sweep_spec.h"
#include "fabricpulse/v1/coordinator.grpc.pb.h"

namespace fabricpulse::client {

struct CollectedSweep {
  std::string sweep_id;
  int nranks = 0;
  std::vector<v1::StepResult> results;  // at most the sweep's step count
  v1::SweepFinished finished;
  // The sweep's end: OK, or why it failed (it ran, and failed).
  absl::Status status;
};

// Errors: the coordinator's refusal before the sweep started
// (INVALID_ARGUMENT, RESOURCE_EXHAUSTED busy, UNAVAILABLE unreachable, ...).
// A sweep that started and then failed is no error: see `status`.
// `progress` (may be null) is told of each step, labelled `what`.
absl::StatusOr<CollectedSweep> RunAndCollect(v1::CoordinatorService::Stub& stub,
                                             const v1::SweepRequest& request,
                                             ProgressLine* progress,
                                             const std::string& what);

// The exit code and one line (printed) for a refusal from RunAndCollect.
int ReportRefusal(const std::string& command, const absl::Status& status);

// One stored sweep of the history; 0, or the exit code (an unknown id: 2,
// one line naming `command`) when it cannot be had.
int FetchStoredSweep(v1::CoordinatorService::Stub& stub,
                     const std::string& command, const std::string& id,
                     v1::GetSweepResponse* out);

// A sweep of `op` at the one size `bytes` (B, K, M, G), out of place,
// checked. Errors: INVALID_ARGUMENT naming --bytes or --timeout.
absl::StatusOr<core::SweepSpec> OneSizeSpec(const std::string& op,
                                            const std::string& bytes,
                                            const std::string& timeout,
                                            int iters, int warmup);

}  // namespace fabricpulse::client
