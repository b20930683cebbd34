// `fabricpulse nodes [--plan P] [--output table|json|csv]`: each campaign
// plan's verdict per node (ListNodes) with the evidence it rests on, and
// the newest campaign of each plan.
#pragma once

#include <string>

#include "client/commands/coordinator_connection.h"
#include "client/output/output_options.h"
#include "fabricpulse/v1/coordinator.pb.h"

namespace fabricpulse::client {

// The listing in `format`:
// - table: one row per plan and node (PLAN, NODE, VERDICT, SINCE,
//   LAST_TESTED, EVIDENCE: the newest result, its busbw against the
//   reference and the threshold it fell below, its group and sweep), then a
//   line per plan with its newest campaign;
// - json: the ListNodesResponse in protobuf's JSON mapping;
// - csv: a header and one line per node (times in Unix seconds, busbw in
//   bytes/s of the newest result; empty when not measured).
std::string FormatNodes(const v1::ListNodesResponse& nodes,
                        OutputFormat format);

// One line for a campaign: "campaign ID of PLAN (GROUPING) STATUS: M of N
// node(s) measured; pass P, degraded D, fail F, suspect S, untested U; K
// second pass(es)".
std::string CampaignLine(const v1::CampaignInfo& campaign);

// Returns the exit code (2 bad --output; 3 unreachable or refused; 1 the
// coordinator refused the plan).
int RunNodesCommand(const CoordinatorTarget& coordinator,
                    const std::string& plan, const std::string& output);

}  // namespace fabricpulse::client
