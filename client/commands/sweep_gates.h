// The gates of `fabricpulse sweep` (exit code 5 when one fails):
//  --fail-on-regression: any step of this sweep regressed against its
//    baseline (the coordinator's verdict, core::JudgeStep).
//  --min-busbw OP=VALUE: nccl-tests' NCCL_TESTS_MIN_BW per op: the average
//    busbw of the op's steps in this sweep (every size and placement, as
//    nccl-tests' "Avg bus bandwidth") must be at least 90% of VALUE (the
//    tolerance nccl-tests applies). VALUE is in the sweep's --bw-unit
//    (GB/s by default, Gbit/s with --bw-unit Gbps).
// Pure functions over the results; no I/O.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "client/output/output_options.h"
#include "fabricpulse/v1/types.pb.h"

namespace fabricpulse::client {

// nccl-tests' tolerance: an average below min x this fails.
inline constexpr double kMinBusbwTolerance = 0.9;

struct MinBusbw {
  std::string op;
  double value = 0;             // as typed, in the unit below
  double bytes_per_second = 0;  // the same, converted
};

// Parses --min-busbw values ("OP=VALUE", each flag may hold a comma list,
// already split) in `unit`. Errors: INVALID_ARGUMENT, one line naming the
// flag and the value: not OP=VALUE, an unknown op, a value that is not a
// finite number >= 0, or an op given twice.
absl::StatusOr<std::vector<MinBusbw>> ParseMinBusbw(
    const std::vector<std::string>& values, BwUnit unit);

// Checks that every op of `gates` is among `ops` (the sweep's ops, when
// known before it runs). Errors: INVALID_ARGUMENT naming the op.
absl::Status CheckGateOps(const std::vector<MinBusbw>& gates,
                          const std::vector<std::string>& ops);

// The failed --min-busbw gates, one line each ("all_reduce: average busbw
// 0.12 GB/s over 8 steps is below the minimum 100000 GB/s
// (--min-busbw, failing below 90%)"); an op without a measured step fails.
std::vector<std::string> FailedMinBusbw(
    const std::vector<MinBusbw>& gates,
    const std::vector<v1::StepResult>& results, BwUnit unit);

// The --fail-on-regression line when any result regressed ("2 step(s)
// regressed against their baseline; first: <DescribeComparison>"), else "".
std::string FailedRegressionGate(const std::vector<v1::StepResult>& results,
                                 BwUnit unit);

}  // namespace fabricpulse::client
