#include "client/commands/sweep_collect.h"

#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "client/commands/coordinator_connection.h"
#include "client/commands/exit_codes.h"
#include "daemon/common/grpc_status.h"
#include "daemon/core/byte_size.h"
#include "daemon/core/duration_text.h"
#include "grpcpp/grpcpp.h"

namespace fabricpulse::client {

absl::StatusOr<CollectedSweep> RunAndCollect(v1::CoordinatorService::Stub& stub,
                                             const v1::SweepRequest& request,
                                             ProgressLine* progress,
                                             const std::string& what) {
  grpc::ClientContext ctx;
  auto reader = stub.RunSweep(&ctx, request);
  CollectedSweep sweep;
  int steps = 0;
  v1::SweepEvent event;
  while (reader->Read(&event)) {
    if (event.has_started()) {
      sweep.sweep_id = event.started().sweep_id();
      sweep.nranks = event.started().nranks();
      steps = event.started().steps();
    } else if (event.has_result()) {
      sweep.results.push_back(event.result());
      if (progress != nullptr) {
        progress->Update(static_cast<int>(sweep.results.size()), steps, what);
      }
    } else if (event.has_finished()) {
      sweep.finished = event.finished();
    }
  }
  if (progress != nullptr) progress->Clear();
  absl::Status status = common::FromGrpcStatus(reader->Finish());
  if (sweep.sweep_id.empty()) {
    return status.ok() ? absl::InternalError("the sweep never started")
                       : status;
  }
  sweep.status = status;
  return sweep;
}

int ReportRefusal(const std::string& command, const absl::Status& status) {
  PrintError(absl::StrCat(command, ": ",
                          status.code() == absl::StatusCode::kInvalidArgument
                              ? "invalid sweep: "
                              : "",
                          status.message()));
  return status.code() == absl::StatusCode::kUnavailable ? kExitUnreachable
                                                         : ExitCodeFor(status);
}

int FetchStoredSweep(v1::CoordinatorService::Stub& stub,
                     const std::string& command, const std::string& id,
                     v1::GetSweepResponse* out) {
  grpc::ClientContext ctx;
  ctx.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(30)));
  v1::GetSweepRequest req;
  req.set_sweep_id(id);
  grpc::Status status = stub.GetSweep(&ctx, req, out);
  if (status.error_code() == grpc::StatusCode::NOT_FOUND) {
    PrintError(absl::StrCat(command, ": ", status.error_message()));
    return kExitBadInput;
  }
  if (!status.ok()) return ReportCallError(command, status);
  return kExitOk;
}

absl::StatusOr<core::SweepSpec> OneSizeSpec(const std::string& op,
                                            const std::string& bytes,
                                            const std::string& timeout,
                                            int iters, int warmup) {
  auto size = core::ParseByteSize(bytes, "--bytes");
  if (!size.ok()) return size.status();
  if (*size < 1 || *size > core::kMaxBytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--bytes: ", bytes, " is out of range; allowed: 1 B to 1T"));
  }
  const std::optional<absl::Duration> deadline =
      core::ParseSecondsOrDuration(timeout);
  if (!deadline) {
    return absl::InvalidArgumentError(
        absl::StrCat("--timeout: '", timeout,
                     "' is not a duration; use e.g. 30s, 500ms, 2m"));
  }
  core::SweepSpec spec;
  spec.ops = {op};
  spec.min_bytes = *size;
  spec.max_bytes = *size;
  spec.iters = iters;
  spec.warmup_iters = warmup;
  spec.placement = "out_of_place";
  spec.timeout = *deadline;
  spec.check = true;
  return spec;
}

}  // namespace fabricpulse::client
