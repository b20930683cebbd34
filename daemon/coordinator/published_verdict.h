// The verdict a coordinator hands each agent about its own node (issue 30),
// which the agent publishes on the node (node-feature-discovery labels, the
// file node-problem-detector's check reads). Of the campaign plans that judge
// a node, the worst verdict is published, so that a node one plan confirmed
// failed is never shown as passing because another plan passed it:
// fail > degraded > suspect > pass > untested.
#pragma once

#include <optional>
#include <string>

#include "absl/time/time.h"
#include "daemon/core/node_verdict.h"
#include "fabricpulse/v1/types.pb.h"

namespace fabricpulse::coordinator {

// How strongly a verdict speaks against a node: untested 0, pass 1,
// suspect 2, degraded 3, fail 4.
int PublishSeverity(core::NodeVerdict verdict);

// One plan's status as a notice: tested and since in Unix seconds (0 when
// never / unknown), expires = last tested + `validity` (0 when untested).
v1::NodeVerdictNotice ToNotice(const std::string& plan,
                               const core::NodeStatus& status,
                               absl::Duration validity);

// Keeps in `worst` the more severe of `worst` and `candidate` (on a tie, the
// one tested more recently; then the first).
void KeepWorst(std::optional<v1::NodeVerdictNotice>& worst,
               v1::NodeVerdictNotice candidate);

}  // namespace fabricpulse::coordinator
