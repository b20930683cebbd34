// How a step compares with its baseline, in words, for the table and for
// the CLI's gate messages: latency-bound steps (core::IsLatencyBound) by
// time, the others by busbw, never "0.00 GB/s vs 0.00 GB/s".
#pragma once

#include <string>

#include "client/output/output_options.h"
#include "fabricpulse/v1/types.pb.h"

namespace fabricpulse::client {

// True when the result was judged on time (it has a baseline and is
// latency-bound); meaningless without a baseline (baseline_sweeps 0).
bool JudgedOnTime(const v1::StepResult& result);

// "all_reduce 1024 B out-of-place: time 512 us vs baseline 48.2 us (median
// of 5 sweeps)" or "all_reduce 64 MiB in-place: busbw 1.20 GB/s vs
// baseline 10.50 GB/s (median of 5 sweeps)", bandwidth in `unit`. Without
// a baseline: "... : no baseline yet".
std::string DescribeComparison(const v1::StepResult& result, BwUnit unit);

}  // namespace fabricpulse::client
