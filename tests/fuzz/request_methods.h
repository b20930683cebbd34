// The first byte of a request fuzz target's input: which request the rest
// is (modulo the count). Shared by the targets and fuzz_seed_writer, so
// that the committed seeds keep meaning the same request.
#pragma once

namespace fabricpulse::fuzz {

enum class CoordinatorMethod {
  kRegister,
  kHeartbeat,
  kKvSet,
  kKvGet,
  kRunSweep,
  kListSweeps,
  kIdOnly,  // AbortSweep, GetSweep, Diagnose, ListAgents, Stats
  kCount
};

enum class AgentMethod { kRunSweep, kAbort, kFlightRecords, kDescribe, kCount };

enum class WorkerMethod { kRunSweep, kFlightRecords, kAbort, kPing, kCount };

}  // namespace fabricpulse::fuzz
