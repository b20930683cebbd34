#include "daemon/core/measurement_key.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "daemon/core/op_traits.h"

namespace fabricpulse::core {

std::string MeasurementKey(const SweepSpec& spec) {
  const std::string iters =
      spec.adaptive.enabled
          ? absl::StrFormat("auto(%g,%d..%d,%s)", spec.adaptive.tolerance,
                            spec.adaptive.min_iters, spec.adaptive.max_iters,
                            absl::FormatDuration(spec.adaptive.step_time_cap))
          : absl::StrCat(spec.iters);
  std::string key = absl::StrCat("warmup=", spec.warmup_iters, ";iters=", iters,
                                 ";graph=", spec.graph ? 1 : 0,
                                 ";redop=", spec.redop, ";root=", spec.root);
  bool moe = false;
  for (const std::string& name : spec.ops) {
    absl::StatusOr<Op> op = ParseOp(name);
    moe = moe || (op.ok() && IsMoe(*op));
  }
  if (moe) {
    const MoeShape& m = spec.moe;
    absl::StrAppendFormat(&key, ";moe=%d,%d,%d,%d,%g,%d,%s", m.tokens, m.hidden,
                          m.topk, m.experts_per_rank, m.skew, m.seed, m.dtype);
    // DeepEP's fields, only when set: a plain shape keeps its key.
    if (!(m.preset.empty() && m.experts_total == 0 && m.group_ranks == 0 &&
          m.topk_groups == 0 && m.masked == 0 && !m.per_selection &&
          !m.fp8_scales && m.header_bytes == 0 && m.combine_dtype.empty())) {
      absl::StrAppendFormat(&key, ",%s,%d,%d,%d,%d,%d,%d,%d,%s", m.preset,
                            m.experts_total, m.group_ranks, m.topk_groups,
                            m.masked, m.per_selection, m.fp8_scales,
                            m.header_bytes, m.combine_dtype);
    }
  }
  return key;
}

}  // namespace fabricpulse::core
