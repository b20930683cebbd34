// Fuzzes what WorkerService does with a request's bytes: decode the request
// message, then run the handler's checks: RunSweep's CheckWorkerSweep (rank,
// spec, backend support, expansion) for both backends, GetFlightRecords'
// FlightRecorder::Snapshot. Abort and Ping carry nothing to check (Abort's
// comm id is compared with the running one).
//
// Input: first byte = the request (request_methods.h), the rest = its
// wire bytes.
#include <string>

#include "absl/strings/str_cat.h"
#include "daemon/core/log.h"
#include "daemon/worker/flight_recorder.h"
#include "daemon/worker/worker_sweep_check.h"
#include "fabricpulse/v1/worker.pb.h"
#include "tests/fuzz/fuzz_check.h"
#include "tests/fuzz/fuzz_targets.h"
#include "tests/fuzz/request_methods.h"

namespace fabricpulse::fuzz {
namespace {

void RunSweep(const v1::WorkerSweepRequest& request) {
  for (const char* backend : {"gloo", "nccl"}) {
    const auto checked = worker::CheckWorkerSweep(request, backend);
    CheckCode(checked.status(), {absl::StatusCode::kInvalidArgument},
              "CheckWorkerSweep");
    if (!checked.ok()) {
      CheckNamesField(checked.status(), "CheckWorkerSweep");
      continue;
    }
    if (checked->steps.empty() || checked->steps.size() > core::kMaxSteps) {
      Fail("an accepted worker sweep has no steps or too many");
    }
  }
}

void FlightRecords(const v1::FlightRecordsRequest& request) {
  worker::FlightRecorder recorder(4);
  for (int seq = 0; seq < 6; ++seq) {
    const std::string sweep = seq < 3 ? "s1" : "s2";
    const uint64_t id =
        recorder.Begin(sweep, "c1", 1, seq, "all_reduce", 8, "float");
    if (seq % 2 == 0) recorder.Finish(id, absl::OkStatus());
  }
  int rank = -2;
  const auto records = recorder.Snapshot(request.sweep_id(), &rank);
  if (records.size() > 4 || (records.empty() != (rank == -1))) {
    Fail(absl::StrCat("Snapshot gave ", records.size(), " records, rank ",
                      rank));
  }
}

}  // namespace

int FuzzWorkerRequests(const uint8_t* data, size_t size) {
  static const bool quiet = (core::SetLogLevel(core::LogLevel::kError), true);
  (void)quiet;
  if (size == 0) return 0;
  const auto method = static_cast<WorkerMethod>(
      data[0] % static_cast<int>(WorkerMethod::kCount));
  const uint8_t* message = data + 1;
  const int length = static_cast<int>(size - 1);
  switch (method) {
    case WorkerMethod::kRunSweep: {
      v1::WorkerSweepRequest request;
      if (request.ParseFromArray(message, length)) RunSweep(request);
      break;
    }
    case WorkerMethod::kFlightRecords: {
      v1::FlightRecordsRequest request;
      if (request.ParseFromArray(message, length)) FlightRecords(request);
      break;
    }
    case WorkerMethod::kAbort: {
      v1::WorkerAbortRequest request;
      (void)request.ParseFromArray(message, length);
      break;
    }
    default: {
      v1::PingRequest request;
      (void)request.ParseFromArray(message, length);
      break;
    }
  }
  return 0;
}

}  // namespace fabricpulse::fuzz
