// The per-op charts of one sweep: busbw (linear, GB/s) and latency (log 10)
// against message size (log 2), out-of-place as filled circles on a solid
// line, in-place as open squares on a dashed one, regressions ringed in red,
// and the baseline (median of the plan's recent good sweeps) as a
// translucent band where the steps carry one; none is drawn where they do
// not. Ops whose steps carry pairs (the pairwise matrix) are left to
// pair_matrix_section.h.
#pragma once

#include <string>

#include "absl/strings/string_view.h"
#include "fabricpulse/v1/coordinator.pb.h"

namespace fabricpulse::client::report {

// Two charts per op, in the order the ops first appear in the results:
// <svg class="chart busbw" id="PREFIX-busbw-OP" data-op="OP"> and
// <svg class="chart latency" id="PREFIX-latency-OP" data-op="OP">, one
// point per step (a step whose time is 0 is not drawable on the latency
// chart, and counted in its caption). Empty when no step qualifies.
std::string RenderOpCharts(const v1::GetSweepResponse& sweep,
                           absl::string_view id_prefix);

// "all_reduce 64 KiB out-of-place: busbw 1.23 GB/s, algbw ..., time 12.3 us
// (p50 .., p99 ..); baseline ...; REGRESSION; 3 wrong": one step, for a
// tooltip.
std::string DescribeStep(const v1::StepResult& result);

}  // namespace fabricpulse::client::report
