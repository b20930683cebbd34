// Every timeout that depends on another, derived in one place from the few
// that are chosen: the heartbeat interval, the lease, the bound on an
// agent's call to one of its workers, and the grace a stuck worker gets
// before it is killed. The coordinator, agent and worker read them here.
#pragma once

#include "absl/time/time.h"

namespace fabricpulse::core {

struct TimeoutBudget {
  // How often an agent heartbeats.
  absl::Duration heartbeat_interval = absl::Seconds(1);
  // An agent not heard from for this long is lost to the coordinator; an
  // agent whose heartbeats go unanswered this long aborts its sweep (sweep
  // lease); the agent's own calls to the coordinator are bounded by it.
  absl::Duration lease = absl::Seconds(5);
  // An agent's call to one of its workers (abort, flight records).
  absl::Duration worker_rpc = absl::Seconds(1);
  // A worker that has not returned this long after an abort is killed.
  absl::Duration kill_grace = absl::Seconds(2);
  // Longest server-side wait of one rendezvous KvGet.
  absl::Duration max_kv_wait = absl::Seconds(60);

  // The coordinator's call to an agent that in turn calls its workers in
  // parallel (Describe, Abort, GetFlightRecords): their bound and slack.
  absl::Duration AgentRpc() const { return worker_rpc + kill_grace; }
  // How long the coordinator waits for the streams of an ended sweep's
  // agents, which end once their workers have returned or been killed after
  // the grace, or once their sweep lease runs out.
  absl::Duration Drain() const {
    return worker_rpc + kill_grace + lease + kill_grace;
  }
  // Silence after which the coordinator gives up on a sweep: the longest a
  // step may legitimately take (`op_timeout` for each of its `iterations`)
  // plus slack for the workers' own deadline handling.
  absl::Duration Silence(absl::Duration op_timeout, int iterations) const {
    return op_timeout * iterations + 3 * lease;
  }
};

// The budget the daemons run with.
inline constexpr TimeoutBudget kTimeouts{};

}  // namespace fabricpulse::core
