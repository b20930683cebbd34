// The answer of ListNodes: each campaign plan's verdict per node with its
// evidence, and the newest campaign of each plan listed. Pure conversion.
#pragma once

#include <vector>

#include "daemon/coordinator/campaign_runner.h"
#include "daemon/coordinator/store/history_store.h"
#include "fabricpulse/v1/coordinator.pb.h"

namespace fabricpulse::coordinator {

// Nodes in the order given; those past core::kMaxListResponseBytes are
// counted in left_out instead.
v1::ListNodesResponse ListNodesAnswer(
    const std::vector<PlanNodeStatus>& nodes,
    const std::vector<CampaignRecord>& campaigns);

v1::CampaignInfo CampaignInfoOf(const CampaignRecord& record);

}  // namespace fabricpulse::coordinator
