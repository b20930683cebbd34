// A sweep spec, its validation and its deterministic expansion into steps.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "daemon/core/adaptive_iters.h"
#include "daemon/core/dtype.h"
#include "daemon/core/moe_shape.h"
#include "daemon/core/op_traits.h"
#include "daemon/core/redop.h"

namespace fabricpulse::core {

enum class Placement { kOutOfPlace, kInPlace, kBoth };

absl::string_view PlacementName(Placement placement);
// "out_of_place", "in_place" or "both". Errors: INVALID_ARGUMENT naming the
// field "placement".
absl::StatusOr<Placement> ParsePlacement(absl::string_view name);

// Limits that Validate enforces.
inline constexpr uint64_t kMaxBytes = 1ull << 40;  // 1T
inline constexpr int kMaxIters = 1000000;
inline constexpr int kMaxWarmupIters = 100000;
inline constexpr double kMaxFactor = 1024;
// Steps of one sweep (ops x sizes x placements): every op at every size of
// a factor-2 schedule from 1 B to 1 TiB, both placements, is 738; the bound
// keeps a sweep's stored rows and its GetSweep answer (~1.4 KB a step at
// most, see limits.h) small.
inline constexpr size_t kMaxSteps = 4096;
inline constexpr absl::Duration kDefaultOpTimeout = absl::Seconds(30);
inline constexpr absl::Duration kMaxOpTimeout = absl::Hours(1);

// One op's largest size under --max-bytes auto (auto_max_bytes.h).
struct OpMaxBytes {
  std::string op;  // one of the spec's ops (canonical once resolved)
  uint64_t max_bytes = 0;
  uint64_t buffer_bytes = 0;  // one rank's buffers at max_bytes
};

// --max-bytes auto[:FRACTION]: the rule, and what the coordinator resolved
// (auto_max_bytes.h; v1::MaxBytesAuto documents each field).
struct MaxBytesAuto {
  double fraction = 0;  // 0: off, max_bytes applies
  uint64_t free_bytes = 0;
  std::string least_free;
  uint64_t budget_bytes = 0;
  std::vector<OpMaxBytes> ops;  // empty until resolved
};

// Names as they come from the user, so that Validate can name the field and
// the bad value. Defaults are the CLI's defaults.
struct SweepSpec {
  std::vector<std::string> ops = {"all_reduce"};
  uint64_t min_bytes = 8;
  uint64_t max_bytes = 32ull << 20;
  double factor = 2;
  uint64_t step_bytes = 0;
  std::string dtype = "float";
  std::string redop = "sum";
  int root = 0;
  int warmup_iters = 5;
  // Timed iterations per step; ignored when adaptive.enabled.
  int iters = 20;
  // Adaptive iteration counts (iters auto): see adaptive_iters.h.
  AdaptiveIters adaptive;
  bool check = true;
  std::string placement = "both";
  bool graph = false;
  absl::Duration timeout = kDefaultOpTimeout;
  bool fresh_comm = false;
  // On (fraction != 0): max_bytes is ignored until the coordinator resolves
  // the per-op sizes, then it is the largest of them.
  MaxBytesAuto max_bytes_auto;
  // The moe ops' shape (moe_shape.h); the size schedule and dtype do not
  // apply to them.
  MoeShape moe;
};

// One measurement: one op at one size and placement.
struct Step {
  int index = 0;
  Op op = Op::kAllReduce;
  uint64_t bytes = 0;  // count * element size (nccl-tests' "size")
  uint64_t count = 0;  // total elements (nccl-tests' "count")
  DType dtype = DType::kFloat;
  RedOp redop = RedOp::kSum;
  int root = 0;  // -1 for ops without a root
  bool in_place = false;
  // The pairwise op's round (pair_schedule.h); -1 for other ops.
  int round = -1;
  // The moe ops' shape (bytes: one rank's tokens, tokens x hidden x the
  // element size; count: tokens x hidden); unused by other ops.
  MoeShape moe;
};

// A validated spec with names resolved.
struct ResolvedSpec {
  std::vector<Op> ops;
  DType dtype = DType::kFloat;
  RedOp redop = RedOp::kSum;
  Placement placement = Placement::kBoth;
};

// Checks every field against its allowed range for a communicator of
// `nranks` ranks: at most kMaxOpsPerSpec ops (duplicates dropped), names of
// at most kMaxSpecTokenLength bytes (limits.h), sizes, counts and timeout
// in range, and the adaptive settings (ValidateAdaptive) when enabled.
// Errors: INVALID_ARGUMENT whose message starts with the field
// name, then the value (a client's string quoted by its prefix, with its
// length) and the allowed range.
absl::StatusOr<ResolvedSpec> Validate(const SweepSpec& spec, int nranks);

// The sizes of the schedule, in order (before per-op rounding), from
// min_bytes up to max_bytes (or `max_bytes`, when given).
std::vector<uint64_t> SizeSchedule(const SweepSpec& spec);
std::vector<uint64_t> SizeSchedule(const SweepSpec& spec, uint64_t max_bytes);

// The steps of one op at one size, as Expand orders them (out-of-place, then
// in-place, as the placement asks), indexed from 0; empty when the size is
// too small for the op's split.
std::vector<Step> StepsAtSize(const ResolvedSpec& resolved, int root, Op op,
                              uint64_t bytes, int nranks);

// Expands a spec into its ordered steps: for each op, for each size, the
// out-of-place step then the in-place step (as the placement asks; ops
// without an in-place variant get out-of-place only); a moe op is one
// step at the spec's MoE shape, out of place, in the shape's dtype. Sizes too
// small for an op's split are dropped. With --max-bytes auto, each op's sizes
// go up to its own resolved size. The same spec and nranks always give the same
// list. Errors: those of Validate; INVALID_ARGUMENT when an op's schedule
// has more than kMaxSteps sizes, the expansion more than kMaxSteps steps or
// none, or max_bytes is auto and not resolved yet.
absl::StatusOr<std::vector<Step>> Expand(const SweepSpec& spec, int nranks);

// The most collectives one step of a valid `spec` runs on a rank, for the
// deadlines that cover a whole step: warm-ups, timed iterations (in
// adaptive mode max_iters, one agreement per batch and NCCL's percentile
// pass: 3 x max_iters) and 2 more (the data check, a barrier).
int OpsPerStepBound(const SweepSpec& spec);

// Bytes of the largest buffer any step needs on one rank (send plus
// receive; for moe ops the busiest rank's rows), for sizing allocations
// once per sweep.
uint64_t MaxBufferBytes(const std::vector<Step>& steps, int nranks);

}  // namespace fabricpulse::core
