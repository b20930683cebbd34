// --max-bytes auto[:FRACTION] (DeepSpeed's --maxsize/--mem-factor): each
// op's largest size, picked from the free memory of the sweep's ranks.
//
// The rule. Every rank has a free-memory figure (its GPU's free memory, or
// its share of its machine's available host memory; see
// daemon/coordinator/rank_memory.h). The budget is FRACTION x the least
// figure of any rank, capped by the backend's own buffer limit
// (BackendBufferLimit). For each op, its largest size is the largest power
// of two P (bytes, nccl-tests' "size") with P >= min_bytes whose steps at P
// need one rank's buffers (MaxBufferBytes of StepsAtSize: the layout the
// workers allocate, at the sweep's nranks and placement) of at most the
// budget. Below it the schedule is min_bytes and factor (or step_bytes) as
// usual. An op for which no such P exists refuses the sweep.
//
// Powers of two: a free-memory figure that moves a little between sweeps
// must not move the sizes with it, or the history's series and baselines
// would never line up.
//
// Who resolves: the coordinator, when it plans the sweep, from its members'
// fresh descriptions. The resolved spec (v1::MaxBytesAuto filled in) is
// what every rank receives and expands, what the history stores and what
// `results` shows.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "daemon/core/op_traits.h"
#include "daemon/core/sweep_spec.h"

namespace fabricpulse::core {

// FRACTION when `auto` is given without one. DeepSpeed's --mem-factor
// default is 0.3; 0.25 stays under the workers' own guard,
// FABRICPULSE_MEM_FRACTION (0.3 of the GPU's free memory when the buffers
// are allocated), with room for a communicator built after the figure was
// read (the first sweep on a member set, --fresh-comm).
inline constexpr double kDefaultAutoFraction = 0.25;

// What --max-bytes (or a plan's max_bytes) says.
struct MaxBytesChoice {
  uint64_t bytes = 0;        // a fixed largest size (auto_fraction == 0)
  double auto_fraction = 0;  // > 0: auto with this FRACTION
};

// Parses a byte size (ParseByteSize: "1G"), "auto" (kDefaultAutoFraction)
// or "auto:FRACTION" with 0 < FRACTION <= 1 ("auto" case-insensitive).
// Errors: INVALID_ARGUMENT naming `field` and the text: a bad byte size
// (the message also offers auto[:FRACTION]), or a FRACTION that is not a
// number in that range.
absl::StatusOr<MaxBytesChoice> ParseMaxBytes(absl::string_view text,
                                             absl::string_view field);

// Sets `spec`'s max_bytes, or turns auto on (resolution cleared).
void SetMaxBytes(const MaxBytesChoice& choice, SweepSpec& spec);

// True when --max-bytes auto is on (fraction != 0, NaN included).
inline bool HasMaxBytesAuto(const SweepSpec& spec) {
  return spec.max_bytes_auto.fraction != 0;
}

// Part of Validate: with auto off, no per-op sizes; with auto on, the
// fraction in (0, 1], least_free at most kMaxLeastFreeLength bytes, and
// per-op sizes either absent (not resolved yet) or exactly one for each of
// `ops`, each from min_bytes to kMaxBytes. Errors: INVALID_ARGUMENT naming
// the field ("max_bytes_auto..."), the value and the allowed range.
absl::Status ValidateMaxBytesAuto(const SweepSpec& spec,
                                  const std::vector<Op>& ops);

// The largest size of `op`'s schedule: max_bytes, or with auto the op's
// resolved size. Errors: INVALID_ARGUMENT "max_bytes: ..." when auto is on
// and not resolved.
absl::StatusOr<uint64_t> MaxBytesOf(const SweepSpec& spec, Op op);

// One rank's free memory, as the rule reads it.
struct RankMemory {
  int rank = 0;
  uint64_t free_bytes = 0;
  // For people: "rank 1 (node a, GPU 1)".
  std::string where;
};

// Applies the rule to `spec` (auto on, validated as `resolved` for
// `nranks`) over `ranks` (one entry per rank): fills max_bytes_auto's
// free_bytes, least_free (the least free rank; the lowest on a tie),
// budget_bytes and ops (canonical op names, in `resolved` order), and sets
// max_bytes to the largest op's size. `buffer_limit` caps the budget
// (BackendBufferLimit). Errors: INVALID_ARGUMENT "max_bytes: ..." for the
// first op that no power of two from min_bytes up fits, naming the op, the
// least free rank, its free memory, FRACTION, the budget and what min_bytes
// needs; FAILED_PRECONDITION when `ranks` is empty.
absl::Status ResolveMaxBytesAuto(SweepSpec& spec, const ResolvedSpec& resolved,
                                 int nranks,
                                 const std::vector<RankMemory>& ranks,
                                 uint64_t buffer_limit);

}  // namespace fabricpulse::core
