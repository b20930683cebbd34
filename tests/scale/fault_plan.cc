#include "tests/scale/fault_plan.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace fabricpulse::scale {
namespace {

absl::Status BadEntry(const std::string& flag, const std::string& entry,
                      const std::string& why) {
  return absl::InvalidArgumentError(
      absl::StrCat(flag, ": '", entry, "' ", why));
}

absl::StatusOr<std::set<std::string>> NameSet(
    const std::string& flag, const std::vector<std::string>& names) {
  std::set<std::string> out;
  for (const std::string& name : names) {
    if (name.empty()) return BadEntry(flag, name, "is empty; expected NAME");
    if (!out.insert(name).second) {
      return BadEntry(flag, name, "is named twice");
    }
  }
  return out;
}

}  // namespace

std::string SimNodeName(int index) {
  return absl::StrFormat("sim-%04d", index);
}

absl::StatusOr<FaultPlan> FaultPlan::Parse(
    const std::vector<std::string>& slow, const std::vector<std::string>& dead,
    const std::vector<std::string>& hang) {
  FaultPlan plan;
  for (const std::string& entry : slow) {
    const size_t colon = entry.rfind(':');
    if (colon == std::string::npos || colon == 0) {
      return BadEntry("--slow-node", entry, "is not NAME:FACTOR");
    }
    double factor = 0;
    if (!absl::SimpleAtod(entry.substr(colon + 1), &factor) || !(factor >= 1)) {
      return BadEntry("--slow-node", entry,
                      "has a bad FACTOR; expected a number >= 1");
    }
    if (!plan.slow_.emplace(entry.substr(0, colon), factor).second) {
      return BadEntry("--slow-node", entry, "names its node twice");
    }
  }
  auto dead_set = NameSet("--dead-node", dead);
  if (!dead_set.ok()) return dead_set.status();
  auto hang_set = NameSet("--hang-node", hang);
  if (!hang_set.ok()) return hang_set.status();
  for (const std::string& name : *hang_set) {
    if (dead_set->count(name) > 0) {
      return BadEntry("--hang-node", name,
                      "is also a --dead-node; a node is dead or hung");
    }
  }
  plan.dead_ = *std::move(dead_set);
  plan.hang_ = *std::move(hang_set);
  return plan;
}

NodeFault FaultPlan::For(const std::string& name) const {
  NodeFault fault;
  if (auto it = slow_.find(name); it != slow_.end()) {
    fault.slow_factor = it->second;
  }
  fault.dead = dead_.count(name) > 0;
  fault.hang = hang_.count(name) > 0;
  return fault;
}

}  // namespace fabricpulse::scale
