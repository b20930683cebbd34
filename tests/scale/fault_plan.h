// Which simulated nodes misbehave, and how: the fleet simulator's
// --slow-node, --dead-node and --hang-node flags. Every fleet_sim process of
// a fleet may get the same flags; each applies only those naming the nodes
// it hosts.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace fabricpulse::scale {

// The name of simulated node `index`: "sim-0000", "sim-0001", ... (four
// digits at least; wider indexes keep all their digits).
std::string SimNodeName(int index);

// How one node behaves.
struct NodeFault {
  // Its ranks report this many times the modeled time (1: healthy).
  double slow_factor = 1;
  // Its RunSweep streams end at once with UNAVAILABLE "simulated dead rank".
  bool dead = false;
  // Its RunSweep streams send comm_ready, then nothing until aborted or
  // cancelled; they end ABORTED.
  bool hang = false;
};

class FaultPlan {
 public:
  // `slow` holds "NAME:FACTOR" entries (FACTOR >= 1), `dead` and `hang` node
  // names. Errors: INVALID_ARGUMENT naming the flag (--slow-node,
  // --dead-node, --hang-node) and the bad entry: no colon, a factor that is
  // not a number >= 1, an empty name, a node named twice in one flag, or
  // one node both dead and hung.
  static absl::StatusOr<FaultPlan> Parse(const std::vector<std::string>& slow,
                                         const std::vector<std::string>& dead,
                                         const std::vector<std::string>& hang);

  // The fault of node `name` (healthy when not named).
  NodeFault For(const std::string& name) const;

 private:
  std::map<std::string, double> slow_;
  std::set<std::string> dead_;
  std::set<std::string> hang_;
};

}  // namespace fabricpulse::scale
