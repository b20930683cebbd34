// `fabricpulse sweep`: runs a sweep and prints its results as they come.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "client/commands/coordinator_connection.h"
#include "client/commands/iters_flags.h"
#include "client/output/output_options.h"
#include "daemon/core/sweep_spec.h"

namespace fabricpulse::client {

// The flags of `sweep`, as typed (sizes and timeout still text).
struct SweepFlags {
  std::vector<std::string> ops = {"all_reduce"};
  std::string min_bytes = "8";
  std::string max_bytes = "32M";  // or auto[:FRACTION]
  double factor = 2;
  std::string step = "0";
  std::string dtype = "float";
  std::string redop = "sum";
  int root = 0;
  // The moe ops' shape (--moe-tokens, ...; client/cli/moe_options.h).
  core::MoeShape moe;
  // --moe-preset (empty: none), and the plan keys of the moe flags given
  // (they override the preset's values).
  std::string moe_preset;
  std::vector<std::string> moe_explicit;
  // --iters N|auto and the adaptive settings.
  ItersFlags iters;
  int warmup = 5;
  bool check = true;
  std::string placement = "both";
  bool graph = false;
  std::string timeout = "30s";
  std::vector<std::string> nodes;
  std::string output = "table";
  // "" (not given): GB/s in the table and --min-busbw, bytes per second in
  // JSON and CSV (output_options.h).
  std::string bw_unit;
  bool raw = false;
  // avg, min or max: the table's time and bandwidths (output_options.h).
  std::string time_across_ranks = "avg";
  bool fresh_comm = false;
  // Run this plan of the coordinator's config (then the spec flags above
  // must not be given).
  std::string plan;
  // Gates (sweep_gates.h): exit 5 when a step regressed / when an op's
  // average busbw is below its minimum ("OP=VALUE" in --bw-unit).
  bool fail_on_regression = false;
  std::vector<std::string> min_busbw;
  // Run on GPUs busy with foreign compute processes, and never yield.
  bool allow_busy = false;
  // --wait DURATION: while the members run another sweep (a schedule's, or
  // another operator's), retry until they are free or this much time has
  // passed; "0" (the default) refuses at once (exit 4). 0 to 24h.
  std::string wait = "0";
  // --progress auto|always|never (client/output/progress_line.h).
  std::string progress = "auto";
};

inline constexpr absl::Duration kMaxSweepWait = absl::Hours(24);

// --wait's value. Errors: INVALID_ARGUMENT naming the flag and the range.
absl::StatusOr<absl::Duration> ParseSweepWait(const std::string& text);

// Whether a refused sweep's status says its members run another sweep
// (Membership::Reserve's RESOURCE_EXHAUSTED), which --wait waits out; a
// busy GPU (a foreign compute process) is not waited for.
bool MembersBusy(const absl::Status& status);

// Parses sizes (--max-bytes also auto[:FRACTION], core/auto_max_bytes.h),
// the timeout and the iteration flags (ApplyItersFlags). Errors:
// INVALID_ARGUMENT naming the flag.
absl::StatusOr<core::SweepSpec> SpecFromFlags(const SweepFlags& flags);

// Checks every flag that needs no coordinator: what SpecFromFlags parses,
// --output, --bw-unit, --time-across-ranks and --min-busbw, and, without --plan
// and --nodes and with `nranks` > 0, the spec for that many ranks
// (core::Validate: ops, dtype, redop, root, ranges). `fabricpulse local` calls
// it before it starts anything. Errors: INVALID_ARGUMENT naming the flag and
// what is allowed.
absl::Status CheckSweepFlags(const SweepFlags& flags, int nranks = 0);

// Returns the exit code: 0 success; 1 the sweep failed or its data check
// found wrong elements; 2 bad flags; 3 unreachable; 4 busy (members busy
// with another sweep, a GPU busy with a foreign process, or the sweep was
// preempted by one); 5 a gate failed (each failed gate on one line on
// stderr).
int RunSweepCommand(const CoordinatorTarget& coordinator,
                    const SweepFlags& flags);

}  // namespace fabricpulse::client
