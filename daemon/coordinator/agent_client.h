// The coordinator's view of an agent: the AgentService calls it makes, as an
// interface with a gRPC implementation (grpc_agent_client.h) and a fake for
// unit tests (tests/fakes/fake_agent_client.h).
//
// Every call is asynchronous: it returns at once and reports through a
// callback that runs on a transport thread, so a sweep over any number of
// agents costs no thread per agent. Callbacks must not block.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "daemon/common/abort_cause.h"
#include "fabricpulse/v1/agent.pb.h"

namespace fabricpulse::coordinator {

// The events of one AgentService.RunSweep stream.
struct AgentSweepCallbacks {
  // Each event, in stream order, never two at once.
  std::function<void(const v1::RankEvent&)> on_event;
  // Exactly once, after the last event: the stream's status (OK when the
  // agent finished the sweep; CANCELLED after Cancel()).
  std::function<void(const absl::Status&)> on_done;
};

// One running RunSweep stream. Thread-safe.
class AgentSweepStream {
 public:
  virtual ~AgentSweepStream() = default;
  // Ends the stream early; on_done follows promptly (CANCELLED unless it had
  // already ended). Idempotent. Dropping the handle does not cancel.
  virtual void Cancel() = 0;
};

// Thread-safe.
class AgentClient {
 public:
  virtual ~AgentClient() = default;
  // AgentService.Describe, bounded by `timeout`.
  virtual void Describe(
      absl::Duration timeout,
      std::function<void(absl::StatusOr<v1::AgentInfo>)> done) = 0;
  // AgentService.Abort, bounded by `timeout`; `cause` travels as the
  // call's metadata (daemon/common/abort_cause.h).
  virtual void Abort(const v1::AgentAbortRequest& request,
                     common::AbortCause cause, absl::Duration timeout,
                     std::function<void(absl::Status)> done) = 0;
  // AgentService.GetFlightRecords, bounded by `timeout`.
  virtual void GetFlightRecords(
      const v1::AgentFlightRecordsRequest& request, absl::Duration timeout,
      std::function<void(absl::StatusOr<v1::AgentFlightRecordsResponse>)>
          done) = 0;
  // Starts AgentService.RunSweep. The stream has no deadline of its own: the
  // caller's silence limit and the agent's sweep lease bound it.
  virtual std::unique_ptr<AgentSweepStream> RunSweep(
      const v1::AgentSweepRequest& request, AgentSweepCallbacks callbacks) = 0;
};

// Hands out the client of each agent (by its node name and address).
// Thread-safe.
class AgentClients {
 public:
  virtual ~AgentClients() = default;
  virtual std::shared_ptr<AgentClient> For(const v1::AgentInfo& agent) = 0;
};

}  // namespace fabricpulse::coordinator
