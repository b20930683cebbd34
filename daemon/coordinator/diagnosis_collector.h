// Gathers every member's flight records for a sweep and diagnoses them.
#pragma once

#include <string>
#include <vector>

#include "daemon/common/channel_pool.h"
#include "daemon/core/diagnosis.h"
#include "fabricpulse/v1/types.pb.h"

namespace fabricpulse::coordinator {

// Asks each agent of `agents` (in sweep rank order, as SweepRunner assigns)
// for its workers' flight records of `sweep_id`, bounded by a few seconds;
// an agent that does not answer makes its ranks unreachable, with the
// reason. Then core::Diagnose.
core::Diagnosis CollectAndDiagnose(const std::string& sweep_id,
                                   const std::vector<v1::AgentInfo>& agents,
                                   common::ChannelPool& channels);

}  // namespace fabricpulse::coordinator
