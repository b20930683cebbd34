// `fabricpulse campaign --plan P [--grouping G] [--wait [--timeout D]]`:
// starts a campaign of a campaign plan now (StartCampaign) and prints its
// id; with --wait, follows it (ListNodes once a second) until it ends and
// prints its summary line.
#pragma once

#include <string>

#include "absl/time/time.h"
#include "client/commands/coordinator_connection.h"

namespace fabricpulse::client {

struct CampaignFlags {
  std::string plan;
  std::string grouping;  // "" = the plan's
  bool wait = false;
  double timeout_seconds = 7 * 24 * 3600;  // with --wait
};

// Exit codes: 0 started (with --wait: ended naming no node fail or
// degraded); 1 with --wait, the campaign named a node fail or degraded, or
// was interrupted, or --timeout passed first; 2 bad flags; 3 unreachable
// or refused; the coordinator's refusal otherwise (a plan that is not a
// campaign plan: 2; one of the plan still running: 4).
int RunCampaignCommand(const CoordinatorTarget& coordinator,
                       const CampaignFlags& flags);

}  // namespace fabricpulse::client
