// The checks a worker runs on a sweep request before it acts on it (before
// any communicator is touched): the rank within nranks, the spec
// (core::Validate), what the backend can run, and the expansion into steps.
// Shared by WorkerServiceImpl::RunSweep and the fuzz target
// tests/fuzz/worker_requests_fuzzer.cc.
//
// Thread-safety: a pure function.
#pragma once

#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "daemon/core/sweep_spec.h"
#include "fabricpulse/v1/worker.pb.h"

namespace fabricpulse::worker {

struct CheckedWorkerSweep {
  core::SweepSpec spec;  // the request's spec, defaults filled in
  std::vector<core::Step> steps;
};

// Errors: INVALID_ARGUMENT "rank: ..." when nranks < 1 or rank is outside
// 0..nranks-1; those of core::Validate, core::CheckBackendSupport (for
// `backend`, "gloo" or "nccl") and core::Expand.
absl::StatusOr<CheckedWorkerSweep> CheckWorkerSweep(
    const v1::WorkerSweepRequest& request, absl::string_view backend);

}  // namespace fabricpulse::worker
