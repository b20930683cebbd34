// Every bound on what a client, an agent or time can grow, in one place.
// Each is enforced where the input arrives, with one error naming the field,
// the bound and the value's length (docs/bounds.md). The message-size
// limits are derived from the others; tests/unit/coordinator/
// message_bounds_test.cc builds the largest response each bound allows and
// checks that it fits.
#pragma once

#include <cstddef>
#include <cstdint>

#include "absl/time/time.h"

namespace fabricpulse::core {

// --- Sweep specs (Validate, sweep_spec.h) -----------------------------------
// Entries in a spec's op list. Duplicates are dropped, so at most the nine
// ops run; the bound keeps the stored spec small.
inline constexpr size_t kMaxOpsPerSpec = 32;
// Length of an op, dtype, reduction or placement name (the longest known
// one, "reduce_scatter", has 14).
inline constexpr size_t kMaxSpecTokenLength = 32;
// Length of the rank description of --max-bytes auto's least free rank
// (v1::MaxBytesAuto.least_free): "rank N (node NAME, GPU G)" with a node
// name of up to 253 bytes, with room to spare.
inline constexpr size_t kMaxLeastFreeLength = 512;
// Node names in one sweep request or plan.
inline constexpr size_t kMaxNodesPerSweep = 16384;
// Ranks with wrong elements listed per step (StepResult.wrong_by_rank):
// the ones with the most; the step's `wrong` total always counts every rank.
inline constexpr size_t kMaxWrongRanksPerStep = 64;

// --- Names (name_rules.h) ---------------------------------------------------
// Node names: [A-Za-z0-9][A-Za-z0-9._-]*, as long as a Kubernetes node name.
inline constexpr size_t kMaxNodeNameLength = 253;
// HOST:PORT an agent advertises (a DNS name, [IPv6] or IPv4, and a port).
inline constexpr size_t kMaxAddressLength = 261;
// Ids that identify an agent's process and workers (instance and boot ids,
// incarnations) and sweep ids.
inline constexpr size_t kMaxIdLength = 128;
// Agent ids the coordinator hands out: the node name and about 30 more.
inline constexpr size_t kMaxAgentIdLength = kMaxNodeNameLength + 32;
// Free text an agent reports (its backend version).
inline constexpr size_t kMaxFreeTextLength = 128;
// Characters of a client's string quoted in an error message.
inline constexpr size_t kQuotedPrefixLength = 32;

// --- Membership (membership.h) ----------------------------------------------
// Registered agents, lost ones included (config `agents.max`).
inline constexpr int kDefaultMaxAgents = 4096;
inline constexpr int kMaxAgentsLimit = 16384;
// A lost agent is forgotten this long after its last heartbeat (config
// `agents.forget_lost_after`).
inline constexpr absl::Duration kDefaultForgetLostAfter = absl::Hours(24);
inline constexpr absl::Duration kMinForgetLostAfter = absl::Minutes(1);
inline constexpr absl::Duration kMaxForgetLostAfter = absl::Hours(24 * 365);
// Workers (ranks) of one agent: as many as --ranks allows.
inline constexpr int kMaxWorkersPerAgent = 512;
// Ranks over every registered agent.
inline constexpr int kMaxRanks = 65536;
// Communicators a worker keeps between sweeps (least recently used evicted
// first); the coordinator mirrors each worker's cache to name them
// (coordinator/comm_naming.h).
inline constexpr size_t kWorkerCommCacheCapacity = 4;

// --- Sweep events (sweep_runner.h) ------------------------------------------
// Each rank reports each step once and its communicator once: a rank's
// events per sweep are bounded by steps + 1, an agent's by its ranks times
// that; one more fails the sweep, naming the agent.

// --- Messages (gRPC max receive sizes) --------------------------------------
// What the coordinator's server accepts: the largest request is a
// SweepRequest naming kMaxNodesPerSweep nodes of the longest name (~4.3 MB).
inline constexpr int kCoordinatorMaxRequestBytes = 8 << 20;
// What an agent's server accepts: AgentSweepRequest (~10 KB at
// kMaxWorkersPerAgent ranks) and small calls.
inline constexpr int kAgentMaxRequestBytes = 1 << 20;
// What every client of the coordinator (CLI, agents) and the coordinator as
// a client of its agents accept: ListAgents at kMaxAgentsLimit agents and
// kMaxRanks ranks (~34 MB), GetSweep of the largest sweep (~14 MB),
// ListSweeps (cut at kMaxListResponseBytes), an agent's flight records
// (512 records of ~150 B per worker, ~39 MB at kMaxWorkersPerAgent).
inline constexpr int kMaxClientReceiveBytes = 64 << 20;
// ListSweeps stops adding sweeps once its answer reaches this size and
// says how many it left out.
inline constexpr size_t kMaxListResponseBytes = 16 << 20;

// --- History retention (history_retention.h) --------------------------------
inline constexpr absl::Duration kDefaultHistoryMaxAge = absl::Hours(24 * 90);
inline constexpr absl::Duration kMinHistoryMaxAge = absl::Hours(1);
inline constexpr absl::Duration kMaxHistoryMaxAge = absl::Hours(24 * 36500);
inline constexpr uint64_t kDefaultHistoryMaxBytes = 1ull << 30;
inline constexpr uint64_t kMinHistoryMaxBytes = 1ull << 20;
inline constexpr uint64_t kMaxHistoryMaxBytes = 1ull << 40;
// Stored error text of one sweep.
inline constexpr size_t kMaxStoredErrorLength = 4096;

}  // namespace fabricpulse::core
