#include "daemon/core/auto_max_bytes.h"

#include <algorithm>
#include <bit>
#include <cmath>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "daemon/core/byte_size.h"
#include "daemon/core/limits.h"
#include "daemon/core/name_rules.h"
#include "daemon/core/status_macros.h"

namespace fabricpulse::core {
namespace {

constexpr absl::string_view kAuto = "auto";

bool FractionInRange(double fraction) {
  return fraction > 0 && fraction <= 1;  // false for NaN
}

std::string AutoText(double fraction) {
  return absl::StrCat("auto:", fraction);
}

// One rank's buffers for `op`'s steps at `bytes`; 0 when the size is too
// small for the op's split.
uint64_t BufferBytesAt(const ResolvedSpec& resolved, int root, Op op,
                       uint64_t bytes, int nranks) {
  const std::vector<Step> steps =
      StepsAtSize(resolved, root, op, bytes, nranks);
  return steps.empty() ? 0 : MaxBufferBytes(steps, nranks);
}

// The largest power of two >= min_bytes whose buffers fit `budget`; 0 when
// none does.
uint64_t LargestFitting(const SweepSpec& spec, const ResolvedSpec& resolved,
                        Op op, int nranks, uint64_t budget) {
  // Buffers hold at least one copy of the message, so no size above the
  // budget can fit.
  const uint64_t top = std::min(budget, kMaxBytes);
  if (top == 0) return 0;
  for (uint64_t size = std::bit_floor(top); size >= spec.min_bytes && size > 0;
       size >>= 1) {
    const uint64_t buffers =
        BufferBytesAt(resolved, spec.root, op, size, nranks);
    // Too small to split: every smaller size is, too.
    if (buffers == 0) return 0;
    if (buffers <= budget) return size;
  }
  return 0;
}

}  // namespace

absl::StatusOr<MaxBytesChoice> ParseMaxBytes(absl::string_view text,
                                             absl::string_view field) {
  const absl::string_view stripped = absl::StripAsciiWhitespace(text);
  MaxBytesChoice choice;
  if (!absl::StartsWithIgnoreCase(stripped, kAuto)) {
    absl::StatusOr<uint64_t> bytes = ParseByteSize(text, field);
    if (!bytes.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          bytes.status().message(),
          "; or auto[:FRACTION] (0 < FRACTION <= 1) for the largest size "
          "that fits in free memory"));
    }
    choice.bytes = *bytes;
    return choice;
  }
  absl::string_view rest = stripped.substr(kAuto.size());
  if (rest.empty()) {
    choice.auto_fraction = kDefaultAutoFraction;
    return choice;
  }
  double fraction = 0;
  if (rest.front() != ':' || !absl::SimpleAtod(rest.substr(1), &fraction) ||
      !FractionInRange(fraction)) {
    return absl::InvalidArgumentError(absl::StrCat(
        field, ": ", QuotePrefix(text),
        ": FRACTION must be a number with 0 < FRACTION <= 1; allowed: auto "
        "(FRACTION ",
        kDefaultAutoFraction,
        "), auto:FRACTION (e.g. auto:0.5) or a byte size such as 1G"));
  }
  choice.auto_fraction = fraction;
  return choice;
}

void SetMaxBytes(const MaxBytesChoice& choice, SweepSpec& spec) {
  spec.max_bytes_auto = MaxBytesAuto{};
  if (choice.auto_fraction > 0) {
    spec.max_bytes_auto.fraction = choice.auto_fraction;
  } else {
    spec.max_bytes = choice.bytes;
  }
}

absl::Status ValidateMaxBytesAuto(const SweepSpec& spec,
                                  const std::vector<Op>& spec_ops) {
  // The moe ops run at their shape, not at a size: auto leaves them out.
  std::vector<Op> ops;
  for (Op op : spec_ops) {
    if (!IsMoe(op)) ops.push_back(op);
  }
  const MaxBytesAuto& a = spec.max_bytes_auto;
  if (!HasMaxBytesAuto(spec)) {
    if (!a.ops.empty()) {
      return absl::InvalidArgumentError(
          "max_bytes_auto.ops: per-op sizes without a fraction; allowed: "
          "none unless max_bytes_auto.fraction is set (0 < fraction <= 1)");
    }
    return absl::OkStatus();
  }
  if (!FractionInRange(a.fraction)) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_bytes_auto.fraction: ", a.fraction,
                     " is out of range; allowed: more than 0, up to 1 "
                     "(--max-bytes auto:FRACTION)"));
  }
  FP_RETURN_IF_ERROR(CheckLength("max_bytes_auto.least_free", a.least_free,
                                 kMaxLeastFreeLength, /*allow_empty=*/true));
  if (a.ops.empty()) return absl::OkStatus();  // not resolved yet
  if (a.ops.size() > ops.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_bytes_auto.ops: ", a.ops.size(),
                     " entries; allowed: one for each of the spec's ",
                     ops.size(), " op(s)"));
  }
  std::vector<Op> seen;
  for (const OpMaxBytes& entry : a.ops) {
    FP_RETURN_IF_ERROR(
        CheckLength("max_bytes_auto.ops", entry.op, kMaxSpecTokenLength));
    FP_ASSIGN_OR_RETURN(const Op op, ParseOp(entry.op));
    if (std::find(ops.begin(), ops.end(), op) == ops.end() ||
        std::find(seen.begin(), seen.end(), op) != seen.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("max_bytes_auto.ops: ", OpName(op),
                       " is not an op of the spec or is listed twice; "
                       "allowed: one entry for each of the spec's ops"));
    }
    seen.push_back(op);
    if (entry.max_bytes < spec.min_bytes || entry.max_bytes > kMaxBytes) {
      return absl::InvalidArgumentError(absl::StrCat(
          "max_bytes_auto.ops: ", OpName(op), " ",
          FormatByteSize(entry.max_bytes),
          " is out of range; allowed: ", FormatByteSize(spec.min_bytes),
          " (min_bytes) to ", FormatByteSize(kMaxBytes)));
    }
  }
  if (seen.size() != ops.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_bytes_auto.ops: ", seen.size(), " of the spec's ",
                     ops.size(), " ops have a size; allowed: all or none"));
  }
  return absl::OkStatus();
}

absl::StatusOr<uint64_t> MaxBytesOf(const SweepSpec& spec, Op op) {
  if (!HasMaxBytesAuto(spec)) return spec.max_bytes;
  for (const OpMaxBytes& entry : spec.max_bytes_auto.ops) {
    absl::StatusOr<Op> parsed = ParseOp(entry.op);
    if (parsed.ok() && *parsed == op) return entry.max_bytes;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "max_bytes: ", AutoText(spec.max_bytes_auto.fraction),
      " has no size for ", OpName(op),
      " yet; the coordinator picks each op's largest size from its members' "
      "free memory when it plans the sweep"));
}

absl::Status ResolveMaxBytesAuto(SweepSpec& spec, const ResolvedSpec& resolved,
                                 int nranks,
                                 const std::vector<RankMemory>& ranks,
                                 uint64_t buffer_limit) {
  if (ranks.empty()) {
    return absl::FailedPreconditionError(
        "max_bytes: auto needs the free memory of at least one rank");
  }
  const RankMemory* least = &ranks.front();
  for (const RankMemory& r : ranks) {
    if (r.free_bytes < least->free_bytes) least = &r;
  }
  MaxBytesAuto& a = spec.max_bytes_auto;
  const double share = std::floor(a.fraction * least->free_bytes);
  // fraction <= 1, so the product never exceeds free_bytes.
  const uint64_t budget = std::min(static_cast<uint64_t>(share), buffer_limit);
  std::vector<OpMaxBytes> picked;
  uint64_t largest = 0;
  for (Op op : resolved.ops) {
    if (IsMoe(op)) continue;  // run at their shape, not at a size
    const uint64_t size = LargestFitting(spec, resolved, op, nranks, budget);
    if (size == 0) {
      const uint64_t needed =
          BufferBytesAt(resolved, spec.root, op, spec.min_bytes, nranks);
      return absl::InvalidArgumentError(absl::StrCat(
          "max_bytes: ", AutoText(a.fraction), " leaves no size for ",
          OpName(op), ": ",
          needed > 0
              ? absl::StrCat("min_bytes ", FormatByteSize(spec.min_bytes),
                             " needs ", HumanByteSize(needed),
                             " of buffers on each rank")
              : absl::StrCat("no power of two from min_bytes ",
                             FormatByteSize(spec.min_bytes), " up fits"),
          ", more than the budget of ", HumanByteSize(budget), " (", a.fraction,
          " x ", HumanByteSize(least->free_bytes), " free on ", least->where,
          budget < share ? ", capped by the backend's buffer limit" : "",
          "); lower --min-bytes, raise FRACTION or free memory on that "
          "rank"));
    }
    picked.push_back({std::string(OpName(op)), size,
                      BufferBytesAt(resolved, spec.root, op, size, nranks)});
    largest = std::max(largest, size);
  }
  a.free_bytes = least->free_bytes;
  a.least_free = least->where.substr(0, kMaxLeastFreeLength);
  a.budget_bytes = budget;
  a.ops = std::move(picked);
  spec.max_bytes = largest;
  return absl::OkStatus();
}

}  // namespace fabricpulse::core
