// Every timeout that depends on another, derived in one place from the few
// that are chosen: the heartbeat interval, the lease, the bound on an
// agent's call to one of its workers, and the grace a stuck worker gets
// before it is killed. The coordinator, agent and worker read them here.
#pragma once

#include <algorithm>

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
  // The most heartbeats per second the coordinator asks for: a larger fleet
  // heartbeats less often, so that an idle coordinator stays cheap.
  int max_heartbeats_per_second = 100;
  // Longest server-side wait of one rendezvous KvGet.
  absl::Duration max_kv_wait = absl::Seconds(60);

  // The heartbeat interval for a fleet of `agents`: `heartbeat_interval`
  // up to max_heartbeats_per_second agents, then agents / that rate (1,024
  // agents: 10.24 s).
  absl::Duration HeartbeatInterval(int agents) const {
    return std::max(
        heartbeat_interval,
        absl::Seconds(static_cast<double>(agents) / max_heartbeats_per_second));
  }
  // The lease for a fleet of `agents`: `lease`, or five of its heartbeat
  // intervals when that is longer. It is how long the coordinator waits
  // before it calls a silent agent lost, and the sweep lease it gives.
  absl::Duration Lease(int agents) const {
    return std::max(lease, 5 * HeartbeatInterval(agents));
  }

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
  // `diagnose` on a running sweep calls it stalled (and only then names a
  // culprit) when a rank has waited on a peer longer than PeerWait: the
  // waiting rank is inside an op with `op_timeout` as its deadline, and the
  // lease covers the host work between steps (data check, hand-off).
  absl::Duration PeerWait(absl::Duration op_timeout) const {
    return op_timeout + lease;
  }
  // ... or when every rank has been inside the same step, none finishing
  // it, longer than StepStall: each of the step's `iterations` ops at its
  // deadline, plus a lease.
  absl::Duration StepStall(absl::Duration op_timeout, int iterations) const {
    return op_timeout * iterations + lease;
  }
};

// The budget the daemons run with.
inline constexpr TimeoutBudget kTimeouts{};

}  // namespace fabricpulse::core
