// Between the history store's records and the wire messages.
#pragma once

#include <string>
#include <vector>

#include "absl/time/time.h"
#include "daemon/coordinator/store/history_store.h"
#include "fabricpulse/v1/coordinator.pb.h"

namespace fabricpulse::coordinator {

// Unix seconds as the wire carries times; 0 for the infinite past or
// future (never, unknown).
double UnixSeconds(absl::Time t);

StepRecord StepRecordFromResult(const std::string& sweep_id,
                                const v1::StepResult& result);
v1::StepResult ResultFromStepRecord(const StepRecord& step);
RankRecord RankRecordFromPlacement(const v1::RankPlacement& placement);
v1::RankPlacement PlacementFromRankRecord(const RankRecord& rank);
// `steps` and `regressions` are filled from `steps` when given.
v1::SweepSummary SummaryFromRecord(const SweepRecord& sweep,
                                   const std::vector<StepRecord>* steps);
// The spec as stored (JSON text) and back; an unreadable one gives an
// empty spec.
std::string SpecToJson(const v1::SweepSpec& spec);
// An isolation as GetSweep answers it (SweepSummary.isolation).
v1::SweepIsolation IsolationToProto(const IsolationRecord& isolation);
v1::SweepSpec SpecFromJson(const std::string& json);

}  // namespace fabricpulse::coordinator
