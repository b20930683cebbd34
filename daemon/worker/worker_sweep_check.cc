#include "daemon/worker/worker_sweep_check.h"

#include "absl/strings/str_cat.h"
#include "daemon/common/spec_convert.h"
#include "daemon/core/backend_support.h"

namespace fabricpulse::worker {

absl::StatusOr<CheckedWorkerSweep> CheckWorkerSweep(
    const v1::WorkerSweepRequest& request, absl::string_view backend) {
  if (request.nranks() < 1 || request.rank() < 0 ||
      request.rank() >= request.nranks()) {
    return absl::InvalidArgumentError(
        absl::StrCat("rank: ", request.rank(),
                     " is out of range; allowed: 0 "
                     "to nranks-1 (nranks = ",
                     request.nranks(), ")"));
  }
  CheckedWorkerSweep checked;
  checked.spec = common::SpecFromProto(request.spec());
  auto resolved = core::Validate(checked.spec, request.nranks());
  if (!resolved.ok()) return resolved.status();
  absl::Status supported =
      core::CheckBackendSupport(backend, *resolved, checked.spec);
  if (!supported.ok()) return supported;
  auto steps = core::Expand(checked.spec, request.nranks());
  if (!steps.ok()) return steps.status();
  checked.steps = std::move(*steps);
  return checked;
}

}  // namespace fabricpulse::worker
