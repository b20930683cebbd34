#include "daemon/coordinator/group_outcome.h"

#include <limits>

#include "daemon/coordinator/busy_gpus.h"
#include "daemon/core/physical_limits.h"

namespace fabricpulse::coordinator {

GroupOutcome::GroupOutcome(std::string judge_op,
                           const std::vector<v1::AgentInfo>& members)
    : judge_op_(std::move(judge_op)) {
  std::vector<core::RankLocation> ranks;
  for (const v1::AgentInfo& a : members) {
    for (const v1::WorkerInfo& w : a.workers()) {
      core::RankLocation location;
      location.node = a.node_name();
      location.gpu = w.gpu();
      location.nvlink_peers.assign(w.nvlink_peers().begin(),
                                   w.nvlink_peers().end());
      ranks.push_back(std::move(location));
      if (gpu_model_.empty() && w.gpu() >= 0) gpu_model_ = w.gpu_model();
    }
  }
  if (!ranks.empty()) path_ = core::PathClassName(core::SweepPath(ranks));
}

bool GroupOutcome::Take(const v1::SweepEvent& event) {
  if (event.has_started()) sweep_id_ = event.started().sweep_id();
  if (!event.has_result()) return true;
  const v1::StepResult& r = event.result();
  if (r.has_wrong() && r.wrong() > 0) data_wrong_ = true;
  const v1::StepKey& k = r.step();
  if (k.op() != judge_op_) return true;
  const bool better = !found_ || k.bytes() > bytes_ ||
                      (k.bytes() == bytes_ && in_place_ && !k.in_place());
  if (better) {
    found_ = true;
    bytes_ = k.bytes();
    in_place_ = k.in_place();
    busbw_ = r.busbw_bytes_per_second();
  }
  return true;
}

bool GroupOutcome::HeldBack(const absl::Status& status) {
  return status.code() == absl::StatusCode::kResourceExhausted ||
         IsPreempted(status);
}

core::GroupMeasurement GroupOutcome::Measurement(const absl::Status& status,
                                                 absl::Time at) const {
  core::GroupMeasurement m;
  m.ok = status.ok();
  m.data_wrong = data_wrong_;
  m.busbw = found_ ? busbw_ : std::numeric_limits<double>::quiet_NaN();
  m.step = {judge_op_, found_ ? bytes_ : 0, path_, gpu_model_};
  m.sweep_id = sweep_id_;
  m.error = std::string(status.message());
  m.at = at;
  return m;
}

}  // namespace fabricpulse::coordinator
