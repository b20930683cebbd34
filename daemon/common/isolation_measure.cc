#include "daemon/common/isolation_measure.h"

namespace fabricpulse::common {

core::SetMeasurement SetMeasurementOf(
    const std::string& sweep_id, const absl::Status& status,
    const std::vector<v1::StepResult>& results) {
  core::SetMeasurement m;
  m.sweep_id = sweep_id;
  m.ok = status.ok() && !results.empty();
  if (m.ok) {
    m.busbw = results.front().busbw_bytes_per_second();
  } else {
    m.error = status.ok() ? "no result" : std::string(status.message());
  }
  return m;
}

std::vector<core::NodePairMeasurement> NodePairsOf(
    const std::vector<std::string>& nodes, const absl::Status& status,
    const std::vector<v1::StepResult>& results) {
  std::vector<core::NodePairMeasurement> pairs;
  for (const v1::StepResult& r : results) {
    for (const v1::PairResult& p : r.pairs()) {
      if (p.path() != "network") continue;
      pairs.push_back({p.node_a(), p.node_b(),
                       p.wrong() > 0 ? 0.0 : p.busbw_bytes_per_second()});
    }
  }
  if (!status.ok()) {
    for (size_t i = 0; i < nodes.size(); ++i) {
      for (size_t j = i + 1; j < nodes.size(); ++j) {
        pairs.push_back({nodes[i], nodes[j], 0.0});
      }
    }
  }
  return pairs;
}

}  // namespace fabricpulse::common
