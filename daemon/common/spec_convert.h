// Conversions between the wire messages and core's types: the one place
// where a proto becomes a core type or back (history rows have theirs in
// daemon/coordinator/history_convert.h).
#pragma once

#include "daemon/core/diagnosis.h"
#include "daemon/core/step_merge.h"
#include "daemon/core/sweep_spec.h"
#include "fabricpulse/v1/types.pb.h"

namespace fabricpulse::common {

// Unset wire fields (empty strings, zero sizes, absent iters/warmup_iters)
// take core's defaults, so a client that sends only ops gets the documented
// defaults; a value that is set is kept as is for Validate to judge.
core::SweepSpec SpecFromProto(const v1::SweepSpec& proto);
v1::SweepSpec SpecToProto(const core::SweepSpec& spec);

v1::StepKey StepToProto(const core::Step& step);
v1::StepResult MergedToProto(const core::MergedStep& merged);
core::RankStepTiming TimingFromProto(const v1::RankTiming& timing);
// A worker's flight record for diagnosis; an unset time is InfinitePast.
core::FlightRecord FlightRecordFromProto(const v1::FlightRecord& record);

}  // namespace fabricpulse::common
