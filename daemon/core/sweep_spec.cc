#include "daemon/core/sweep_spec.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "daemon/core/auto_max_bytes.h"
#include "daemon/core/byte_size.h"
#include "daemon/core/limits.h"
#include "daemon/core/moe_routing.h"
#include "daemon/core/name_rules.h"
#include "daemon/core/pair_schedule.h"
#include "daemon/core/range_error.h"
#include "daemon/core/status_macros.h"

namespace fabricpulse::core {
namespace {

absl::Status ValidateSizes(const SweepSpec& spec) {
  if (spec.min_bytes < 1 || spec.min_bytes > kMaxBytes) {
    return RangeError("min_bytes", absl::StrCat(spec.min_bytes),
                      absl::StrCat("1 to ", FormatByteSize(kMaxBytes)));
  }
  // With --max-bytes auto, max_bytes is the coordinator's to set; the
  // per-op sizes are checked against min_bytes instead
  // (ValidateMaxBytesAuto).
  const bool auto_max = HasMaxBytesAuto(spec);
  if (!auto_max && spec.max_bytes > kMaxBytes) {
    return RangeError("max_bytes", FormatByteSize(spec.max_bytes),
                      absl::StrCat("up to ", FormatByteSize(kMaxBytes)));
  }
  if (!auto_max && spec.min_bytes > spec.max_bytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "min_bytes: ", FormatByteSize(spec.min_bytes),
        " is greater than max_bytes ", FormatByteSize(spec.max_bytes),
        "; allowed: min_bytes <= max_bytes"));
  }
  if (spec.step_bytes == 0 &&
      !(spec.factor >= 2 && spec.factor <= kMaxFactor)) {
    return RangeError("factor", absl::StrCat(spec.factor),
                      absl::StrCat("2 to ", kMaxFactor,
                                   " (or give step_bytes > 0 for an "
                                   "arithmetic schedule)"));
  }
  if (spec.step_bytes > kMaxBytes) {
    return RangeError("step_bytes", absl::StrCat(spec.step_bytes),
                      absl::StrCat("0 to ", FormatByteSize(kMaxBytes)));
  }
  return absl::OkStatus();
}

}  // namespace

absl::string_view PlacementName(Placement placement) {
  switch (placement) {
    case Placement::kOutOfPlace:
      return "out_of_place";
    case Placement::kInPlace:
      return "in_place";
    case Placement::kBoth:
      return "both";
  }
  return "?";
}

absl::StatusOr<Placement> ParsePlacement(absl::string_view name) {
  std::string lower = absl::AsciiStrToLower(name);
  for (Placement p :
       {Placement::kOutOfPlace, Placement::kInPlace, Placement::kBoth}) {
    if (PlacementName(p) == lower) return p;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("placement: unknown placement ", QuotePrefix(name),
                   "; allowed: out_of_place, in_place, both"));
}

absl::StatusOr<ResolvedSpec> Validate(const SweepSpec& spec, int nranks) {
  ResolvedSpec resolved;
  if (nranks < 1) {
    return RangeError("nranks", absl::StrCat(nranks), "1 or more");
  }
  if (spec.ops.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("ops: empty; allowed: one or more of ", AllOpNames()));
  }
  if (spec.ops.size() > kMaxOpsPerSpec) {
    return absl::InvalidArgumentError(absl::StrCat(
        "ops: ", spec.ops.size(), " entries; allowed: 1 to ", kMaxOpsPerSpec,
        " (each op once is enough: duplicates are dropped)"));
  }
  // Lengths before names: an unknown name is quoted, and must be short.
  for (const std::string& name : spec.ops) {
    FP_RETURN_IF_ERROR(CheckLength("ops", name, kMaxSpecTokenLength));
  }
  FP_RETURN_IF_ERROR(CheckLength("dtype", spec.dtype, kMaxSpecTokenLength));
  FP_RETURN_IF_ERROR(CheckLength("redop", spec.redop, kMaxSpecTokenLength));
  FP_RETURN_IF_ERROR(
      CheckLength("placement", spec.placement, kMaxSpecTokenLength));
  for (const std::string& name : spec.ops) {
    FP_ASSIGN_OR_RETURN(Op op, ParseOp(name));
    if (std::find(resolved.ops.begin(), resolved.ops.end(), op) ==
        resolved.ops.end()) {
      resolved.ops.push_back(op);
    }
  }
  if (nranks < 2 && std::find(resolved.ops.begin(), resolved.ops.end(),
                              Op::kPairwise) != resolved.ops.end()) {
    return absl::InvalidArgumentError(
        absl::StrCat("ops: pairwise measures rank pairs and needs at least 2 "
                     "ranks; this sweep has ",
                     nranks));
  }
  const bool any_moe =
      std::any_of(resolved.ops.begin(), resolved.ops.end(), IsMoe);
  if (any_moe) {
    FP_RETURN_IF_ERROR(ValidateMoeShape(spec.moe, nranks));
    if (spec.graph) {
      return absl::InvalidArgumentError(
          "graph: not supported with the moe ops; allowed: graph off");
    }
  }
  FP_RETURN_IF_ERROR(ValidateSizes(spec));
  FP_RETURN_IF_ERROR(ValidateMaxBytesAuto(spec, resolved.ops));
  FP_ASSIGN_OR_RETURN(resolved.dtype, ParseDType(spec.dtype));
  FP_ASSIGN_OR_RETURN(resolved.redop, ParseRedOp(spec.redop));
  FP_ASSIGN_OR_RETURN(resolved.placement, ParsePlacement(spec.placement));
  if (spec.root < 0 || spec.root >= nranks) {
    return RangeError("root", absl::StrCat(spec.root),
                      absl::StrCat("0 to ", nranks - 1, " (", nranks,
                                   " ranks in this sweep)"));
  }
  if (!spec.adaptive.enabled && (spec.iters < 1 || spec.iters > kMaxIters)) {
    return RangeError("iters", absl::StrCat(spec.iters),
                      absl::StrCat("1 to ", kMaxIters));
  }
  if (spec.warmup_iters < 0 || spec.warmup_iters > kMaxWarmupIters) {
    return RangeError("warmup_iters", absl::StrCat(spec.warmup_iters),
                      absl::StrCat("0 to ", kMaxWarmupIters));
  }
  if (spec.timeout <= absl::ZeroDuration() || spec.timeout > kMaxOpTimeout) {
    return RangeError("timeout", absl::FormatDuration(spec.timeout),
                      "more than 0s, up to 1h");
  }
  FP_RETURN_IF_ERROR(ValidateAdaptive(spec.adaptive, spec.graph));
  if (spec.graph && std::find(resolved.ops.begin(), resolved.ops.end(),
                              Op::kPairwise) != resolved.ops.end()) {
    // A rank that sits a round out would capture an empty graph.
    return absl::InvalidArgumentError(
        "graph: not supported with the pairwise op; allowed: graph off");
  }
  return resolved;
}

std::vector<uint64_t> SizeSchedule(const SweepSpec& spec) {
  return SizeSchedule(spec, spec.max_bytes);
}

std::vector<uint64_t> SizeSchedule(const SweepSpec& spec, uint64_t max_bytes) {
  std::vector<uint64_t> sizes;
  uint64_t size = spec.min_bytes;
  // The loop is bounded: Expand refuses more than kMaxSteps steps, so stop
  // one past that.
  while (size <= max_bytes && sizes.size() <= kMaxSteps) {
    sizes.push_back(size);
    uint64_t next;
    if (spec.step_bytes > 0) {
      next = size + spec.step_bytes;
    } else {
      next = static_cast<uint64_t>(std::floor(size * spec.factor));
    }
    if (next <= size) break;
    size = next;
  }
  return sizes;
}

namespace {

Step MoeStep(const MoeShape& shape, Op op) {
  Step step;
  step.op = op;
  // The shape was validated, its dtypes with it.
  step.dtype = MoeStepDType(shape, op);
  step.count = static_cast<uint64_t>(shape.tokens) * shape.hidden;
  step.bytes = step.count * DTypeSize(step.dtype);
  step.root = -1;
  step.moe = shape;
  return step;
}

}  // namespace

std::vector<Step> StepsAtSize(const ResolvedSpec& resolved, int root, Op op,
                              uint64_t bytes, int nranks) {
  std::vector<Step> steps;
  const size_t element = DTypeSize(resolved.dtype);
  const uint64_t count = StepCount(op, bytes, element, nranks);
  if (count == 0) return steps;
  for (bool in_place : {false, true}) {
    if (in_place && (resolved.placement == Placement::kOutOfPlace ||
                     !SupportsInPlace(op))) {
      continue;
    }
    if (!in_place && resolved.placement == Placement::kInPlace &&
        SupportsInPlace(op)) {
      continue;
    }
    Step step;
    step.op = op;
    step.count = count;
    step.bytes = count * element;
    step.dtype = resolved.dtype;
    step.redop = resolved.redop;
    step.root = IsRooted(op) ? root : -1;
    step.in_place = in_place;
    // The pairwise op measures every pair once: one step per round.
    const int rounds = op == Op::kPairwise ? PairRounds(nranks) : 1;
    for (int round = 0; round < rounds; ++round) {
      step.index = static_cast<int>(steps.size());
      step.round = op == Op::kPairwise ? round : -1;
      steps.push_back(step);
    }
  }
  return steps;
}

absl::StatusOr<std::vector<Step>> Expand(const SweepSpec& spec, int nranks) {
  FP_ASSIGN_OR_RETURN(ResolvedSpec resolved, Validate(spec, nranks));
  const size_t element = DTypeSize(resolved.dtype);
  std::vector<Step> steps;
  for (Op op : resolved.ops) {
    if (IsMoe(op)) {
      Step step = MoeStep(spec.moe, op);
      step.index = static_cast<int>(steps.size());
      steps.push_back(step);
      continue;
    }
    FP_ASSIGN_OR_RETURN(const uint64_t max_bytes, MaxBytesOf(spec, op));
    const std::vector<uint64_t> sizes = SizeSchedule(spec, max_bytes);
    // SizeSchedule stops one past kMaxSteps sizes. Refuse here rather than
    // count steps: sizes too small for an op are dropped below, so a
    // cut-short schedule could otherwise pass as a shorter sweep than the
    // one asked for.
    if (sizes.size() > kMaxSteps) {
      return absl::InvalidArgumentError(absl::StrCat(
          "sizes: min_bytes..max_bytes gives more than ", kMaxSteps,
          " sizes; allowed: at most ", kMaxSteps,
          "; raise factor or step_bytes, or narrow min_bytes..max_bytes"));
    }
    for (uint64_t size : sizes) {
      for (Step step : StepsAtSize(resolved, spec.root, op, size, nranks)) {
        step.index = static_cast<int>(steps.size());
        steps.push_back(step);
        if (steps.size() > kMaxSteps) {
          return absl::InvalidArgumentError(absl::StrCat(
              "sizes: the sweep expands to more than ", kMaxSteps,
              " steps (ops x sizes x placements, x rounds for pairwise); "
              "allowed: at most ",
              kMaxSteps,
              "; raise factor or step_bytes, or narrow "
              "min_bytes..max_bytes"));
        }
      }
    }
  }
  if (steps.empty()) {
    // The smallest size any of the ops can run: one element, or one per rank
    // for ops that split data.
    uint64_t needed = 0;
    for (Op op : resolved.ops) {
      const uint64_t op_needed =
          (SplitsCount(op) ? static_cast<uint64_t>(nranks) : 1) * element;
      if (needed == 0 || op_needed < needed) needed = op_needed;
    }
    return absl::InvalidArgumentError(absl::StrCat(
        "max_bytes: ", FormatByteSize(spec.max_bytes),
        " is too small for any step; allowed: at least ", needed,
        " bytes (one element, nranks x element size for ops that split "
        "data)"));
  }
  return steps;
}

int OpsPerStepBound(const SweepSpec& spec) {
  const int timed =
      spec.adaptive.enabled ? 3 * spec.adaptive.max_iters : spec.iters;
  return spec.warmup_iters + timed + 2;
}

uint64_t MaxBufferBytes(const std::vector<Step>& steps, int nranks) {
  uint64_t max_bytes = 0;
  for (const Step& step : steps) {
    const size_t element = DTypeSize(step.dtype);
    if (IsMoe(step.op)) {
      max_bytes =
          std::max(max_bytes, MoeMaxBufferBytes(step.moe, nranks) +
                                  (step.op == Op::kMoeCombineWeighted
                                       ? MoeWeightedOutputBytes(step.moe)
                                       : 0));
      continue;
    }
    BufferLayout layout =
        LayoutFor(step.op, step.count, nranks, 0, step.in_place);
    uint64_t elements = layout.in_place ? layout.alloc_count
                                        : layout.send_count + layout.recv_count;
    max_bytes = std::max<uint64_t>(max_bytes, elements * element);
  }
  return max_bytes;
}

}  // namespace fabricpulse::core
