#include "daemon/coordinator/baseline_change.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "daemon/coordinator/topology_key.h"

namespace fabricpulse::coordinator {
namespace {

std::string Hardware(const std::string& key) {
  const absl::string_view hardware = TopologyHardware(key);
  return hardware.empty() ? "no GPU facts" : std::string(hardware);
}

std::string Version(const std::string& version) {
  return version.empty() ? "unknown version" : version;
}

}  // namespace

std::optional<BaselineChange> FindBaselineChange(const BaselineKey& before,
                                                 const BaselineKey& now) {
  BaselineChange change;
  change.backend_version = before.backend_version != now.backend_version;
  change.topology = before.topology != now.topology;
  if (!change.backend_version && !change.topology) return std::nullopt;
  std::vector<std::string> parts;
  if (change.backend_version) {
    parts.push_back(absl::StrCat(Version(before.backend_version), " -> ",
                                 Version(now.backend_version)));
  }
  if (change.topology) {
    // Same members (the shape), other hardware: only that part differs.
    parts.push_back(absl::StrCat("topology ", Hardware(before.topology), " -> ",
                                 Hardware(now.topology)));
  }
  change.note = absl::StrCat(absl::StrJoin(parts, "; "),
                             ": new baseline from this sweep");
  if (change.note.size() > kMaxBaselineChangeLength) {
    change.note.resize(kMaxBaselineChangeLength - 3);
    change.note += "...";
  }
  return change;
}

}  // namespace fabricpulse::coordinator
