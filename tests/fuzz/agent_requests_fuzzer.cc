// Fuzzes what AgentService does with a request's bytes: decode the request
// message, then run the handler's path over fakes: RunSweep's epoch
// admission (CoordinatorContact::AdmitEpoch) and its SweepRelay over two
// fake workers that complete at once; Abort's AbortLocalWorkers;
// GetFlightRecords' CollectFlightRecords. Describe carries nothing.
//
// Input: first byte = the request (request_methods.h), the rest = its
// wire bytes.
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "daemon/agent/coordinator_contact.h"
#include "daemon/agent/sweep_relay.h"
#include "daemon/agent/worker_fan_out.h"
#include "daemon/core/log.h"
#include "daemon/core/timeout_budget.h"
#include "fabricpulse/v1/agent.pb.h"
#include "tests/fakes/fake_clock.h"
#include "tests/fakes/fake_workers.h"
#include "tests/fuzz/fuzz_check.h"
#include "tests/fuzz/fuzz_targets.h"
#include "tests/fuzz/request_methods.h"

namespace fabricpulse::fuzz {
namespace {

using absl::StatusCode;

// The epoch the fake coordinator last answered with.
constexpr uint64_t kSeenEpoch = 7;

void RunSweep(const v1::AgentSweepRequest& request) {
  fakes::FakeClock clock;
  fakes::FakeLocalWorkers workers(2);
  agent::CoordinatorContact contact;
  contact.Registered(clock.Now(), kSeenEpoch);
  contact.HeartbeatAnswered(clock.Now(), kSeenEpoch, request.sweep_id());
  const absl::Status admitted = contact.AdmitEpoch(request.membership_epoch());
  CheckCode(admitted, {StatusCode::kFailedPrecondition}, "AdmitEpoch");
  if (admitted.ok() != (request.membership_epoch() >= kSeenEpoch)) {
    Fail("AdmitEpoch admitted a stale epoch or refused a current one");
  }
  if (!admitted.ok()) return;
  agent::SweepRelay relay(request, "node-a", &workers, &contact, &clock);
  size_t events = 0;
  const absl::Status status = relay.Run(
      [&events](const v1::RankEvent&) {
        ++events;
        return true;
      },
      [] { return agent::StopCause::kNone; });
  CheckCode(status,
            {StatusCode::kInvalidArgument, StatusCode::kUnavailable,
             StatusCode::kFailedPrecondition, StatusCode::kResourceExhausted,
             StatusCode::kPermissionDenied, StatusCode::kOutOfRange},
            "SweepRelay::Run");
}

void Abort(const v1::AgentAbortRequest& request) {
  fakes::FakeClock clock;
  fakes::FakeLocalWorkers workers(2);
  agent::AbortLocalWorkers(workers, request.comm_id(),
                           core::kTimeouts.worker_rpc, &clock);
}

void FlightRecords(const v1::AgentFlightRecordsRequest& request) {
  fakes::FakeClock clock;
  fakes::FakeLocalWorkers workers(2);
  const std::vector<std::pair<int, int>> ranks = {{0, 0}, {1, 1}};
  const auto records = agent::CollectFlightRecords(
      workers, ranks, request.sweep_id(), core::kTimeouts.worker_rpc, &clock);
  if (records.size() != ranks.size()) {
    Fail("CollectFlightRecords did not answer for every rank");
  }
}

}  // namespace

int FuzzAgentRequests(const uint8_t* data, size_t size) {
  static const bool quiet = (core::SetLogLevel(core::LogLevel::kError), true);
  (void)quiet;
  if (size == 0) return 0;
  const auto method =
      static_cast<AgentMethod>(data[0] % static_cast<int>(AgentMethod::kCount));
  const uint8_t* message = data + 1;
  const int length = static_cast<int>(size - 1);
  switch (method) {
    case AgentMethod::kRunSweep: {
      v1::AgentSweepRequest request;
      if (request.ParseFromArray(message, length)) RunSweep(request);
      break;
    }
    case AgentMethod::kAbort: {
      v1::AgentAbortRequest request;
      if (request.ParseFromArray(message, length)) Abort(request);
      break;
    }
    case AgentMethod::kFlightRecords: {
      v1::AgentFlightRecordsRequest request;
      if (request.ParseFromArray(message, length)) FlightRecords(request);
      break;
    }
    default: {
      v1::DescribeRequest request;
      (void)request.ParseFromArray(message, length);
      break;
    }
  }
  return 0;
}

}  // namespace fabricpulse::fuzz
